package pinochle;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every line the referee sends, as a Java type (PROTOCOL.md, sections 3, 9, 10).
 *
 * <p>{@link #parse} turns one line into one of the records below. A line this
 * kit does not know, or cannot read, becomes {@link Unknown}: the protocol
 * says to ignore it, so later referees can add messages without breaking you.
 *
 * <p>Conventions: seats are numbers from 0; a card the protocol writes as
 * "??" (hidden) is {@code null}; "-" for "nobody" or "none" is {@code null}.
 */
public sealed interface Message {

    // ----------------------------------------------------------------- session

    /** "pinochle 3": the greeting; answer with the handshake. */
    record Hello(int version) implements Message {}

    /** "setoption NAME VALUE": the value of an option you declared, before the first game. */
    record SetOption(String name, String value) implements Message {}

    /** "ping TOKEN": answer "pong TOKEN" at once. */
    record Ping(String token) implements Message {}

    /** "matchend": no more games. */
    record MatchEnd() implements Message {}

    /** "quit": exit now. */
    record Quit() implements Message {}

    /** Any line this kit does not know: ignore it. */
    record Unknown(String line) implements Message {}

    // -------------------------------------------------------------- game start

    /** "game ID VARIANT SEAT PLAYERS key=value...": a new game; forget the old one. */
    record NewGame(String id, String variant, int seat, int players, Map<String, String> options)
            implements Message {}

    /** "rule KEY VALUE...": one rule of the game that has just begun (version 3). */
    sealed interface Rule extends Message {}

    /** "rule ranks A T K Q J 9": the ranks in the deck, high to low. */
    record RuleRanks(List<Card.Rank> ranks) implements Rule {}

    /** "rule copies 2": copies of each card (4 in the double deck). */
    record RuleCopies(int copies) implements Rule {}

    /** "rule points A=11 T=10 ...": counter points of each rank taken in tricks. */
    record RulePoints(Map<Card.Rank, Integer> points) implements Rule {}

    /** "rule last-trick 10": the bonus for the last trick of a hand. */
    record RuleLastTrick(int points) implements Rule {}

    /** "rule target 1000": the score that wins the game. */
    record RuleTarget(int target) implements Rule {}

    /**
     * "rule meld KIND ONCE TWICE [THRICE FOUR-TIMES]": the value of a meld made
     * once, twice ("double-"), three and four times; a null entry ("-") means
     * that many is no meld.
     */
    record RuleMeld(String kind, List<Integer> values) implements Rule {}

    /** "rule follow 1 free" / "rule follow 2 suit trump head": the follow duties of a phase. */
    record RuleFollow(int phase, List<String> duties) implements Rule {}

    /** "rule first-lead trump": the first card led in a hand must be a trump if the leader has one. */
    record RuleFirstLead(String requirement) implements Rule {}

    /** A rule line with a key this kit does not know. */
    record RuleOther(String key, List<String> values) implements Rule {}

    /** "state key=value...": what you may know now, before each request (version 3, "want state"). */
    record State(StateLine state) implements Message {}

    // ------------------------------------------------------------------ a hand

    /** "deal HAND DEALER TURNUP CARD...": your cards; turnup is null in the bidding games ("-"). */
    record Deal(int hand, int dealer, Card turnup, List<Card> cards) implements Message {}

    /** "bonus SEAT POINTS REASON": points outside melds and tricks (e.g. dix-turnup). */
    record Bonus(int seat, int points, String reason) implements Message {}

    /** "play SEAT AS" or "play SEAT table:AS": a card played to the trick. */
    record Play(int seat, Card card, boolean fromTable) implements Message {}

    /** "trick WINNER POINTS": the trick is complete. */
    record Trick(int winner, int points) implements Message {}

    /** "draw SEAT CARD": a seat drew from the stock; card is null when hidden ("??"). */
    record Draw(int seat, Card card) implements Message {}

    /** "meld SEAT KIND POINTS CARD...": a seat melded (the cards it took from its hand). */
    record Meld(int seat, String kind, int points, List<Card> cards) implements Message {}

    /** "exchange SEAT DIX TAKEN": the dix went under the stock, the old turn-up into the seat's hand. */
    record Exchange(int seat, Card dix, Card taken) implements Message {}

    /** "phase2 LEADER": the stock is used up; melds go back to the hands; strict tricks from now. */
    record PhaseTwo(int leader) implements Message {}

    /** "claim SEAT yes|no": a seat claimed the game, rightly or not. */
    record Claim(int seat, boolean success) implements Message {}

    /** "handend HAND points P... totals T...": the hand is over. */
    record HandEnd(int hand, List<Integer> points, List<Integer> totals) implements Message {}

    /** "target N": the target score rose to N (tiebreak=play-on). */
    record Target(int target) implements Message {}

    /** "gameover TERMINATION SEAT|- result R... totals T...": culprit is null for "-". */
    record GameOver(String termination, Integer culprit, List<Double> result, List<Integer> totals)
            implements Message {}

    /** "error TEXT": why your last action was refused. */
    record ErrorNotice(String text) implements Message {}

    // -------------------------------------------------------- the bidding games

    /** "bid SEAT AMOUNT|pass": amount is null for a pass. */
    record Bid(int seat, Integer amount) implements Message {}

    /** "bidwon SEAT AMOUNT": the auction is over. */
    record BidWon(int seat, int amount) implements Message {}

    /** "redeal DEALER": everybody passed; a new deal follows. */
    record Redeal(int dealer) implements Message {}

    /** "kitty CARD...": the kitty, shown to everybody; the bid winner takes it. */
    record Kitty(List<Card> cards) implements Message {}

    /** "kittycard CARD": one more kitty card turned during the auction (kitty-auction). */
    record KittyCard(Card card) implements Message {}

    /** "throwin SEAT": the bid winner conceded the hand. */
    record ThrowIn(int seat) implements Message {}

    /** "trump SEAT SUIT": the bid winner declared trump. */
    record Trump(int seat, Card.Suit suit) implements Message {}

    /** "call SEAT CARD": the bid winner called a card (five players). */
    record Call(int seat, Card card) implements Message {}

    /** "partner BIDDER SEAT|-": who holds the called card; null when the bidder plays alone. */
    record Partner(int bidder, Integer partner) implements Message {}

    /** "give FROM TO CARD...": cards passed between partners; null entries are hidden. */
    record Give(int from, int to, List<Card> cards) implements Message {}

    /** "bury SEAT CARD...": cards the bid winner buried; null entries are hidden. */
    record Bury(int seat, List<Card> cards) implements Message {}

    /** "dummy SEAT CARD": the dummy's top card went to the trick's winner (two-handed-dummy). */
    record Dummy(int seat, Card card) implements Message {}

    /** "contract BIDDER BID made|set POINTS". */
    record Contract(int bidder, int bid, boolean made, int points) implements Message {}

    // ------------------------------------------------------------------ requests

    /**
     * "go DECISION TIME-LEFT-MS BANK-MS ACTION...": reply with exactly one action.
     *
     * <p>{@code legal} is every legal action, with bid ranges already expanded
     * into single bids and meld points split off (see {@link Action}).
     */
    record Go(String decision, int timeLeftMs, int bankMs, List<Action> legal) implements Message {}

    // ------------------------------------------------------------------- parser

    /** One line from the referee as a message; {@link Unknown} for anything unknown or unreadable. */
    static Message parse(String line) {
        String[] t = line.strip().split("\\s+");
        try {
            return switch (t[0]) {
                case "pinochle" -> new Hello(Integer.parseInt(t[1]));
                case "setoption" -> new SetOption(t[1], t.length > 2 ? t[2] : "");
                case "ping" -> new Ping(t.length > 1 ? t[1] : "");
                case "matchend" -> new MatchEnd();
                case "quit" -> new Quit();
                case "game" -> new NewGame(t[1], t[2], num(t[3]), num(t[4]), keyValues(t, 5));
                case "rule" -> parseRule(t);
                case "state" -> new State(StateLine.parse(Arrays.asList(t).subList(1, t.length)));
                case "deal" -> new Deal(num(t[1]), num(t[2]), Card.parseOrNone(t[3]), cards(t, 4, t.length));
                case "bonus" -> new Bonus(num(t[1]), num(t[2]), t.length > 3 ? t[3] : "");
                case "play" -> parsePlay(t);
                case "trick" -> new Trick(num(t[1]), num(t[2]));
                case "draw" -> new Draw(num(t[1]), Card.parse(t[2]));
                case "meld" -> new Meld(num(t[1]), t[2], num(t[3]), cards(t, 4, t.length));
                case "exchange" -> new Exchange(num(t[1]), Card.parse(t[2]), Card.parse(t[3]));
                case "phase2" -> new PhaseTwo(num(t[1]));
                case "claim" -> new Claim(num(t[1]), t[2].equals("yes"));
                case "handend" -> parseHandEnd(t);
                case "target" -> new Target(num(t[1]));
                case "gameover" -> parseGameOver(t);
                case "error" -> new ErrorNotice(line.strip().substring(5).strip());
                case "bid" -> new Bid(num(t[1]), t[2].equals("pass") ? null : num(t[2]));
                case "bidwon" -> new BidWon(num(t[1]), num(t[2]));
                case "redeal" -> new Redeal(num(t[1]));
                case "kitty" -> new Kitty(cards(t, 1, t.length));
                case "kittycard" -> new KittyCard(Card.parse(t[1]));
                case "throwin" -> new ThrowIn(num(t[1]));
                case "trump" -> new Trump(num(t[1]), Card.Suit.of(t[2].charAt(0)));
                case "call" -> new Call(num(t[1]), Card.parse(t[2]));
                case "partner" -> new Partner(num(t[1]), t[2].equals("-") ? null : num(t[2]));
                case "give" -> new Give(num(t[1]), num(t[2]), cards(t, 3, t.length));
                case "bury" -> new Bury(num(t[1]), cards(t, 2, t.length));
                case "dummy" -> new Dummy(num(t[1]), Card.parse(t[2]));
                case "contract" -> new Contract(num(t[1]), num(t[2]), t[3].equals("made"), num(t[4]));
                case "go" -> parseGo(t);
                default -> new Unknown(line);
            };
        } catch (RuntimeException unreadable) {  // a bad number, a missing token...
            return new Unknown(line);
        }
    }

    private static Rule parseRule(String[] t) {
        List<String> values = Arrays.asList(t).subList(2, t.length);
        switch (t[1]) {
            case "ranks": {
                List<Card.Rank> ranks = new ArrayList<>();
                for (String r : values) ranks.add(Card.Rank.of(r.charAt(0)));
                return new RuleRanks(ranks);
            }
            case "copies":
                return new RuleCopies(num(t[2]));
            case "points": {
                Map<Card.Rank, Integer> points = new LinkedHashMap<>();
                for (String item : values) {  // "A=11"
                    points.put(Card.Rank.of(item.charAt(0)), num(item.substring(item.indexOf('=') + 1)));
                }
                return new RulePoints(points);
            }
            case "last-trick":
                return new RuleLastTrick(num(t[2]));
            case "target":
                return new RuleTarget(num(t[2]));
            case "meld": {
                List<Integer> levels = new ArrayList<>();
                for (String v : values.subList(1, values.size())) levels.add(v.equals("-") ? null : num(v));
                return new RuleMeld(values.get(0), levels);
            }
            case "follow":
                return new RuleFollow(num(t[2]), List.copyOf(values.subList(1, values.size())));
            case "first-lead":
                return new RuleFirstLead(t[2]);
            default:
                return new RuleOther(t[1], List.copyOf(values));
        }
    }

    private static Play parsePlay(String[] t) {
        Action action = new Action(t[2], null);
        Card card = action.card();
        if (card == null) throw new IllegalArgumentException("not a card play: " + t[2]);
        return new Play(num(t[1]), card, action.fromTable());
    }

    private static HandEnd parseHandEnd(String[] t) {
        List<String> words = Arrays.asList(t);
        int points = words.indexOf("points");
        int totals = words.indexOf("totals");
        return new HandEnd(num(t[1]), ints(t, points + 1, totals), ints(t, totals + 1, t.length));
    }

    private static GameOver parseGameOver(String[] t) {
        List<String> words = Arrays.asList(t);
        int result = words.indexOf("result");
        int totals = words.indexOf("totals");
        List<Double> results = new ArrayList<>();
        for (int i = result + 1; i < totals; i++) results.add(Double.parseDouble(t[i]));
        return new GameOver(t[1], t[2].equals("-") ? null : num(t[2]), results, ints(t, totals + 1, t.length));
    }

    private static Go parseGo(String[] t) {
        List<Action> legal = new ArrayList<>();
        for (int i = 4; i < t.length; i++) legal.addAll(Action.expand(t[i]));
        return new Go(t[1], num(t[2]), num(t[3]), legal);
    }

    private static int num(String text) {
        return Integer.parseInt(text);
    }

    private static List<Integer> ints(String[] t, int from, int to) {
        List<Integer> values = new ArrayList<>();
        for (int i = from; i < to; i++) values.add(num(t[i]));
        return values;
    }

    private static List<Card> cards(String[] t, int from, int to) {
        List<Card> cards = new ArrayList<>();
        for (int i = from; i < to; i++) cards.add(Card.parse(t[i]));  // "??" -> null
        return cards;
    }

    private static Map<String, String> keyValues(String[] t, int from) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = from; i < t.length; i++) {
            int equals = t[i].indexOf('=');
            if (equals > 0) map.put(t[i].substring(0, equals), t[i].substring(equals + 1));
        }
        return map;
    }
}
