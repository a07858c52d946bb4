package pinochle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small model of the game, kept up to date from the referee's messages.
 *
 * <p>It follows the events (deal, play, trick, draw, meld...) and, because
 * this kit asks for them ("want state"), corrects itself from every
 * {@code state} line: if an event was missed or misread, the state line that
 * comes before the next request puts the hand, trump and trick right again.
 */
public final class Game {

    /** A card played to the current trick, and by whom. */
    public record Played(int seat, Card card) {}

    // The game: from the "game" line and the "rule" lines.
    public String id = "";
    public String variant = "";
    public int seat;
    public int players = 2;
    public Map<String, String> options = new LinkedHashMap<>();
    public List<Card.Rank> ranks = List.of(Card.Rank.values());
    public int copies = 2;
    public Map<Card.Rank, Integer> cardPoints = new HashMap<>();
    public int lastTrickBonus;
    public int target;
    public Map<String, List<Integer>> meldValues = new LinkedHashMap<>();

    // The hand in progress.
    public int handNumber;
    public int dealer;
    public boolean hasStock;               // two-handed with a stock (a turn-up was dealt)
    public final List<Card> hand = new ArrayList<>();   // concealed cards in your hand
    public final List<Card> table = new ArrayList<>();  // your melded cards on the table (stock games, phase 1)
    public Card.Suit trump;                // null until known
    public Card turnup;                    // the face-up card under the stock, or null
    public final List<Played> trick = new ArrayList<>(); // the trick in play, in order
    public Integer bidder;                 // the auction's winner (bidding games), or null
    public Integer bid;
    public Integer partner;                // the bidder's partner (five players), or null
    public int[] handPoints = new int[2];  // trick points this hand, per seat
    public int[] totals = new int[2];      // game totals, per seat
    public StateLine lastState;            // the latest state line, or null
    private final List<Card> setAside = new ArrayList<>();  // cards we gave or buried, not yet confirmed

    /** Updates the model from one message (requests and session messages change nothing). */
    public void apply(Message message) {
        if (message instanceof Message.NewGame g) {
            id = g.id();
            variant = g.variant();
            seat = g.seat();
            players = g.players();
            options = g.options();
            String t = options.get("target");
            target = t == null ? 0 : Integer.parseInt(t);
            totals = new int[players];
            meldValues.clear();
            cardPoints.clear();
            startHand(0, 0);
            lastState = null;
        } else if (message instanceof Message.RuleRanks r) {
            ranks = r.ranks();
        } else if (message instanceof Message.RuleCopies r) {
            copies = r.copies();
        } else if (message instanceof Message.RulePoints r) {
            cardPoints = new HashMap<>(r.points());
        } else if (message instanceof Message.RuleLastTrick r) {
            lastTrickBonus = r.points();
        } else if (message instanceof Message.RuleTarget r) {
            target = r.target();
        } else if (message instanceof Message.RuleMeld r) {
            meldValues.put(r.kind(), r.values());
        } else if (message instanceof Message.Target t) {
            target = t.target();
        } else if (message instanceof Message.Deal d) {
            startHand(d.hand(), d.dealer());
            hand.addAll(d.cards());
            turnup = d.turnup();
            hasStock = turnup != null;
            trump = hasStock ? turnup.suit() : null;
        } else if (message instanceof Message.Play p) {
            if (trick.size() == players) trick.clear();  // safety: a trick line we did not see
            trick.add(new Played(p.seat(), p.card()));
            if (p.seat() == seat) (p.fromTable() ? table : hand).remove(p.card());
        } else if (message instanceof Message.Trick t) {
            trick.clear();
            if (t.winner() < handPoints.length) handPoints[t.winner()] += t.points();
        } else if (message instanceof Message.Draw d) {
            if (d.seat() == seat && d.card() != null) hand.add(d.card());
            if (d.card() != null && d.card().equals(turnup)) turnup = null;  // the turn-up was taken
        } else if (message instanceof Message.Meld m) {
            if (m.seat() == seat && hasStock) {  // with a stock melded cards go to the table
                for (Card c : m.cards()) {
                    hand.remove(c);
                    table.add(c);
                }
            }  // in the bidding games meld is only shown: the cards stay in the hand
        } else if (message instanceof Message.Exchange x) {
            if (x.seat() == seat) {
                if (!table.remove(x.dix())) hand.remove(x.dix());
                hand.add(x.taken());
            }
            turnup = x.dix();
        } else if (message instanceof Message.PhaseTwo) {
            hand.addAll(table);
            table.clear();
            turnup = null;
        } else if (message instanceof Message.HandEnd h) {
            for (int s = 0; s < totals.length && s < h.totals().size(); s++) totals[s] = h.totals().get(s);
        } else if (message instanceof Message.BidWon b) {
            bidder = b.seat();
            bid = b.amount();
        } else if (message instanceof Message.Kitty k) {
            if (bidder != null && bidder == seat) hand.addAll(k.cards());
        } else if (message instanceof Message.Trump t) {
            trump = t.suit();
        } else if (message instanceof Message.Partner p) {
            partner = p.partner();
        } else if (message instanceof Message.Give g) {
            for (Card c : g.cards()) {
                if (c == null) continue;
                if (g.from() == seat) leaveHand(c);
                if (g.to() == seat) hand.add(c);
            }
        } else if (message instanceof Message.Bury b) {
            if (b.seat() == seat) for (Card c : b.cards()) if (c != null) leaveHand(c);
        } else if (message instanceof Message.State s) {
            applyState(s.state());
        }
    }

    /**
     * Called with each reply we send. A card we give or bury leaves the hand at
     * once: the referee confirms them only in one "give"/"bury" line after the
     * last one (and the called card, in five-handed games, leaves without a reply).
     */
    public void replied(Action action) {
        Card c = action.targetCard();
        if (c != null && !action.verb().equals("call") && hand.remove(c)) setAside.add(c);
    }

    /** A card a give or bury line says left our hand: unless we took it out already. */
    private void leaveHand(Card c) {
        if (!setAside.remove(c)) hand.remove(c);
    }

    /** The state line is the referee's own account: trust it over our bookkeeping. */
    private void applyState(StateLine state) {
        lastState = state;
        List<Card> cards = state.cards();
        if (cards != null) {
            if (!sameCards(cards, hand)) Main.log("model drift: we thought we held " + hand + ", the state says " + cards);
            hand.clear();
            hand.addAll(cards);
        }
        if (state.get("trump") != null) trump = state.trump();
        if (state.get("turnup") != null) turnup = state.turnup();
        List<List<Card>> tables = state.tables();
        if (tables != null && seat < tables.size()) {
            table.clear();
            table.addAll(tables.get(seat));
        }
        List<Card> cardsInTrick = state.trick();
        Integer leader = state.leader();
        if (cardsInTrick != null) {
            trick.clear();
            for (int i = 0; i < cardsInTrick.size(); i++) {
                int who = leader == null ? -1 : (leader + i) % players;
                trick.add(new Played(who, cardsInTrick.get(i)));
            }
        }
        int[] t = state.totals();
        if (t != null) totals = t;
        int[] p = state.tricks();
        if (p != null) handPoints = p;
        if (state.target() != null) target = state.target();
    }

    private static boolean sameCards(List<Card> a, List<Card> b) {
        List<Card> rest = new ArrayList<>(b);
        for (Card c : a) if (!rest.remove(c)) return false;
        return rest.isEmpty();
    }

    private void startHand(int number, int dealerSeat) {
        handNumber = number;
        dealer = dealerSeat;
        hand.clear();
        table.clear();
        trick.clear();
        trump = null;
        turnup = null;
        setAside.clear();
        bidder = null;
        bid = null;
        partner = null;
        handPoints = new int[players];
    }

    // ------------------------------------------------------------- card logic

    /** True when {@code card} beats {@code best}, the best card of a trick so far. */
    public boolean beats(Card card, Card best) {
        if (card.suit() == best.suit()) return card.rank().beats(best.rank());  // first of two equal cards wins
        return card.suit() == trump;  // a trump beats any other suit; any other card never wins
    }

    /** The card winning the current trick so far, or null when no card has been played. */
    public Card winningCard() {
        Card best = null;
        for (Played p : trick) {
            if (best == null || beats(p.card(), best)) best = p.card();
        }
        return best;
    }

    /** Counter points of a card taken in a trick (from the "rule points" line). */
    public int points(Card card) {
        return cardPoints.getOrDefault(card.rank(), 0);
    }

    /** How many cards of {@code suit} you hold. */
    public int count(Card.Suit suit) {
        int n = 0;
        for (Card c : hand) if (c.suit() == suit) n++;
        return n;
    }
}
