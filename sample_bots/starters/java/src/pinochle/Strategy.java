package pinochle;

import java.util.Comparator;
import java.util.List;

/**
 * Your bot's thinking. <b>Replace {@link #choose} (and its helpers) with your own.</b>
 *
 * <p>This one plays simply but always legally: it only ever returns one of the
 * actions the referee offered. Keep that property when you change it: the
 * referee ends the game, lost, on any action it did not offer.
 */
public final class Strategy {

    /**
     * ======== THE METHOD TO REPLACE ========
     *
     * <p>Called for every request. {@code request.decision()} says what is
     * asked ("lead", "follow", "meld", "take", "bid", "trump", "call", "give",
     * "bury", or something newer), {@code request.legal()} lists every legal
     * action (bid ranges already expanded, meld points split off), and
     * {@code game} holds what the bot knows (its hand, trump, the trick, the
     * scores, the latest state line). Return one action from
     * {@code request.legal()}.
     *
     * <p>Time: {@code request.timeLeftMs()} is what this reply may take.
     */
    public Action choose(Message.Go request, Game game) {
        List<Action> legal = request.legal();
        return switch (request.decision()) {
            case "bid" -> chooseBid(legal);
            case "trump" -> chooseTrump(legal, game);
            case "meld" -> chooseMeld(legal);
            case "lead", "follow" -> choosePlay(legal, game);
            // take, call, give, bury, and any decision added later: the first offered action
            default -> firstOffered(legal);
        };
    }

    /** Pass when allowed; when a bid is forced, the lowest one. */
    private Action chooseBid(List<Action> legal) {
        for (Action a : legal) if (a.token().equals("pass")) return a;
        return legal.stream()
                .filter(a -> a.bid() != null)
                .min(Comparator.comparingInt(Action::bid))
                .orElse(legal.get(0));
    }

    /** Trump: the offered suit we hold most cards of (never "throw-in"). */
    private Action chooseTrump(List<Action> legal, Game game) {
        return legal.stream()
                .filter(a -> a.trumpSuit() != null)
                .max(Comparator.comparingInt(a -> game.count(a.trumpSuit())))
                .orElse(legal.get(0));
    }

    /** The meld that scores most; pass when there is none. */
    private Action chooseMeld(List<Action> legal) {
        return legal.stream()
                .filter(Action::isMeld)
                .max(Comparator.comparingInt(a -> a.points() == null ? 0 : a.points()))
                .orElse(firstOffered(legal));  // "pass" is the only other choice
    }

    /**
     * Lead or follow: the cheapest card that wins the trick if there is one,
     * else the cheapest card. "Cheapest" means a non-trump before a trump,
     * then the lowest rank. Leading, every card "wins", so it leads its
     * cheapest card.
     */
    private Action choosePlay(List<Action> legal, Game game) {
        Card best = game.winningCard();
        Comparator<Action> cheapest = Comparator
                .comparing((Action a) -> a.card().suit() == game.trump)  // false (non-trump) first
                .thenComparing(a -> a.card().rank(), Comparator.reverseOrder());  // then 9, J, Q, ... A
        List<Action> cards = legal.stream().filter(a -> a.card() != null).toList();
        if (cards.isEmpty()) return firstOffered(legal);
        return cards.stream()
                .filter(a -> best == null || game.beats(a.card(), best))
                .min(cheapest)
                .orElseGet(() -> cards.stream().min(cheapest).orElseThrow());
    }

    /** The first offered action, but never "claim" (a wrong claim loses the game). */
    static Action firstOffered(List<Action> legal) {
        for (Action a : legal) if (!a.token().equals("claim")) return a;
        return legal.get(0);
    }
}
