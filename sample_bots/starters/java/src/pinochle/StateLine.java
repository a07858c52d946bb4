package pinochle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code state} line (protocol 3, asked for with "want state"): everything
 * this seat may know, sent just before each request.
 *
 * <p>The line is kept as a plain map key -> value, so a key this kit does not
 * know is simply carried along (the referee adds new keys at the end over
 * time). The typed accessors below read the documented keys; each returns
 * {@code null} when its key is absent (an older referee, or a pile this
 * variant does not have), so check before you use one.
 */
public final class StateLine {

    /** One seat's bid: {@code amount} is null for a pass. */
    public record Bid(int seat, Integer amount) {
        static Bid parse(String text) {  // "0:25" or "2:pass"
            int colon = text.indexOf(':');
            String amount = text.substring(colon + 1);
            return new Bid(Integer.parseInt(text.substring(0, colon)),
                    amount.equals("pass") ? null : Integer.valueOf(amount));
        }
    }

    private final Map<String, String> fields;

    public StateLine(Map<String, String> fields) {
        this.fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /** "state hand=1 dealer=0 ..." without the word "state": the key=value tokens. */
    public static StateLine parse(List<String> tokens) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String token : tokens) {
            int equals = token.indexOf('=');
            if (equals > 0) fields.put(token.substring(0, equals), token.substring(equals + 1));
        }
        return new StateLine(fields);
    }

    /** Every key and its raw value, in the order sent. */
    public Map<String, String> fields() {
        return fields;
    }

    /** The raw value of any key, or null. */
    public String get(String key) {
        return fields.get(key);
    }

    // ------------------------------------------------------------ documented keys

    /** hand=<n>: the hand number. */
    public Integer hand() { return integer("hand"); }

    /** dealer=<seat>. */
    public Integer dealer() { return integer("dealer"); }

    /** phase=1|2: with a stock, 1 while it lasts; bidding games, 1 until the first card is led. */
    public Integer phase() { return integer("phase"); }

    /** trump=<suit>|-: null while trump is not known. */
    public Card.Suit trump() {
        String v = get("trump");
        return v == null ? null : Card.Suit.parseOrNone(v);
    }

    /** turnup=<card>|-: the face-up card under the stock, null when none. */
    public Card turnup() {
        String v = get("turnup");
        return v == null ? null : Card.parseOrNone(v);
    }

    /** cards=...: your concealed hand (cards you chose to pass or bury are gone already). */
    public List<Card> cards() { return cards("cards"); }

    /** tables=<cards>/<cards>/...: each seat's melded cards on the table (games with a stock). */
    public List<List<Card>> tables() { return perSeatCards("tables"); }

    /** leader=<seat>|-: who led the trick in play; null when no trick is in play (or the key is absent). */
    public Integer leader() {
        String v = get("leader");
        return v == null || v.equals("-") ? null : Integer.valueOf(v);
    }

    /** trick=...: the cards played to the trick in play, in order. */
    public List<Card> trick() { return cards("trick"); }

    /** held=<n>/...: concealed cards each seat holds. */
    public int[] held() { return perSeat("held"); }

    /** stock=<n>: face-down cards in the stock (not the turn-up), while there is a stock. */
    public Integer stock() { return integer("stock"); }

    /** kitty=<n>: face-down cards in the kitty, while it lies there. */
    public Integer kitty() { return integer("kitty"); }

    /** buried=<n>: cards the bid winner has buried. */
    public Integer buried() { return integer("buried"); }

    /** dummy=<n>: face-down dummy cards (two-handed-dummy). */
    public Integer dummy() { return integer("dummy"); }

    /** bid=<seat>:<amount>|-: the auction's winner and its bid; null before it is won. */
    public Bid bid() {
        String v = get("bid");
        return v == null || v.equals("-") ? null : Bid.parse(v);
    }

    /** partner=<seat>|-: the bid winner's called partner (five players). */
    public Integer partner() {
        String v = get("partner");
        return v == null || v.equals("-") ? null : Integer.valueOf(v);
    }

    /** meld=<n>/...: each seat's meld points this hand. */
    public int[] meld() { return perSeat("meld"); }

    /** tricks=<n>/...: each seat's trick points this hand. */
    public int[] tricks() { return perSeat("tricks"); }

    /** totals=<n>/...: the game totals before this hand. */
    public int[] totals() { return perSeat("totals"); }

    /** unseen=<card>:<n>,...: every card you have not seen, with its number of copies. */
    public Map<Card, Integer> unseen() {
        String v = get("unseen");
        if (v == null) return null;
        Map<Card, Integer> counts = new LinkedHashMap<>();
        if (v.equals("-")) return counts;
        for (String item : v.split(",")) {
            int colon = item.indexOf(':');
            counts.put(Card.parse(item.substring(0, colon)), Integer.valueOf(item.substring(colon + 1)));
        }
        return counts;
    }

    // ------------------------------------- keys being added (may be absent: null)

    /** target=<n>: the score that wins the game now (it rises under tiebreak=play-on). */
    public Integer target() { return integer("target"); }

    /** bids=<seat>:<amount|pass>,...|-: this hand's auction so far, in order. */
    public List<Bid> bids() {
        String v = get("bids");
        if (v == null) return null;
        List<Bid> bids = new ArrayList<>();
        if (v.equals("-")) return bids;
        for (String item : v.split(",")) bids.add(Bid.parse(item));
        return bids;
    }

    /** won=<n>/...: tricks won by each seat this hand. */
    public int[] won() { return perSeat("won"); }

    /** known=<cards>/<cards>/...: per seat, concealed cards you know that seat holds. */
    public List<List<Card>> known() { return perSeatCards("known"); }

    // ------------------------------------------------------------------- helpers

    private Integer integer(String key) {
        String v = get(key);
        return v == null || v.equals("-") ? null : Integer.valueOf(v);
    }

    private List<Card> cards(String key) {
        String v = get(key);
        return v == null ? null : Card.parseList(v);
    }

    private int[] perSeat(String key) {
        String v = get(key);
        if (v == null) return null;
        String[] parts = v.split("/");
        int[] values = new int[parts.length];
        for (int i = 0; i < parts.length; i++) values[i] = Integer.parseInt(parts[i]);
        return values;
    }

    private List<List<Card>> perSeatCards(String key) {
        String v = get(key);
        if (v == null) return null;
        List<List<Card>> seats = new ArrayList<>();
        for (String part : v.split("/", -1)) seats.add(Card.parseList(part));
        return seats;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("state");
        fields.forEach((k, v) -> text.append(' ').append(k).append('=').append(v));
        return text.toString();
    }
}
