//! ==================================================================
//!  YOUR BOT'S THINKING GOES HERE: replace `choose` (and its helpers).
//! ==================================================================
//!
//! `choose` gets the game model (your hand, trump, the trick, the scores,
//! the last `state` line: see model.rs) and the request, and returns one of
//! `request.offers`. Whatever it returns, main.rs checks it against the
//! offers and falls back to the first offer if it is not one of them, so a
//! bug here costs a bad move, not the game.
//!
//! The strategy below is deliberately simple, and legal in every variant:
//! * bid: pass when allowed, else the lowest bid;
//! * trump: the offered suit you hold most cards of;
//! * meld: the offered meld that scores most;
//! * lead: your lowest card, a non-trump if you have one;
//! * follow: the lowest card that would win the trick, else the lowest card;
//! * claim: only when your score has reached the target;
//! * give, bury, call, take and anything new: the first offer.

use crate::model::Game;
use crate::protocol::{Action, Card, Decision, Offer, Request};

/// Picks the action to reply to `request`.
pub fn choose(game: &Game, request: &Request) -> Action {
    let offers = &request.offers;

    // A claim ends the game: won if you have reached the target, lost if not.
    if offers.iter().any(|o| o.action == Action::Claim) && game.target > 0 && game.my_score_now() >= game.target {
        return Action::Claim;
    }

    let chosen = match request.decision {
        Decision::Bid => choose_bid(offers),
        Decision::Trump => choose_trump(game, offers),
        Decision::Meld => choose_meld(offers),
        Decision::Lead | Decision::Follow => choose_card(game, offers),
        // give, bury, call, take, and decisions this kit does not know
        _ => None,
    };
    chosen.or_else(|| first_offer(offers)).unwrap_or(Action::Pass)
}

/// The first offer that is a real action (never a claim, never an unparsed token).
fn first_offer(offers: &[Offer]) -> Option<Action> {
    offers
        .iter()
        .map(|o| &o.action)
        .find(|a| !matches!(a, Action::Claim | Action::Other(_)))
        .or_else(|| offers.first().map(|o| &o.action))
        .cloned()
}

/// Pass if allowed, else the lowest bid.
fn choose_bid(offers: &[Offer]) -> Option<Action> {
    if offers.iter().any(|o| o.action == Action::Pass) {
        return Some(Action::Pass);
    }
    offers.iter().filter_map(|o| if let Action::Bid(n) = o.action { Some(n) } else { None }).min().map(Action::Bid)
}

/// The offered suit with the most cards in the hand (the first offered on a tie).
fn choose_trump(game: &Game, offers: &[Offer]) -> Option<Action> {
    let counted = offers.iter().filter_map(|o| match o.action {
        Action::Trump(suit) => Some((game.hand.iter().filter(|c| c.suit == suit).count(), &o.action)),
        _ => None,
    });
    // max_by_key keeps the last of equal keys: reversed, that is the first offered.
    counted.rev().max_by_key(|(count, _)| *count).map(|(_, action)| action.clone())
}

/// The meld that scores most (the first offered on a tie); pass if none.
fn choose_meld(offers: &[Offer]) -> Option<Action> {
    let melds = offers.iter().filter(|o| matches!(o.action, Action::Meld { .. }));
    let best = melds.rev().max_by_key(|o| o.points.unwrap_or(0));
    Some(best.map_or(Action::Pass, |o| o.action.clone()))
}

/// Lead: the lowest card. Follow: the lowest card that wins the trick, else
/// the lowest. "Lowest" puts every non-trump before every trump.
fn choose_card(game: &Game, offers: &[Offer]) -> Option<Action> {
    let low = |c: Card| (game.is_trump(c), c.rank);
    let plays = offers.iter().filter_map(|o| o.action.card().map(|c| (c, &o.action)));
    let winners = plays.clone().filter(|(c, _)| game.would_win(*c));
    // min_by_key keeps the first of equal keys: the order the referee offered.
    let pick = if game.trick.is_empty() { None } else { winners.min_by_key(|(c, _)| low(*c)) };
    pick.or_else(|| plays.min_by_key(|(c, _)| low(*c))).map(|(_, a)| a.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{parse_message, Message};

    fn setup(lines: &str) -> Game {
        let mut game = Game::default();
        for line in lines.lines() {
            game.update(&parse_message(line.trim()).unwrap());
        }
        game
    }

    fn ask(game: &Game, line: &str) -> String {
        let request = match parse_message(line).unwrap() {
            Message::Go(request) => request,
            _ => panic!(),
        };
        let action = choose(game, &request);
        assert!(request.offers_action(&action), "{action} not offered");
        action.to_string()
    }

    #[test]
    fn simple_choices() {
        let g = setup("game x three-handed 0 3\ndeal 1 0 - AS TS KS QS JH\nplay 2 KS");
        assert_eq!(ask(&g, "go bid 5000 60000 pass bid:21..555"), "pass");
        assert_eq!(ask(&g, "go bid 5000 60000 bid:20"), "bid:20");
        assert_eq!(ask(&g, "go trump 5000 60000 trump:C trump:D trump:H trump:S"), "trump:S");
        assert_eq!(ask(&g, "go meld 5000 60000 pass royal:KH,QH=40 aces:AC,AD,AH,AS=100"), "aces:AC,AD,AH,AS");
        assert_eq!(ask(&g, "go follow 5000 60000 AS TS QS"), "TS"); // lowest that beats KS
        assert_eq!(ask(&g, "go bury 5000 60000 bury:JH bury:AS"), "bury:JH");
    }

    #[test]
    fn claims_only_when_there() {
        let mut g = setup("game x two-handed-hoyle 0 2 target=1000\ndeal 1 0 QH AS 9C");
        assert_eq!(ask(&g, "go lead 5000 60000 AS 9C claim"), "9C");
        g.totals = vec![990, 0];
        g.trick_points = vec![11, 0];
        assert_eq!(ask(&g, "go lead 5000 60000 AS 9C claim"), "claim");
    }
}
