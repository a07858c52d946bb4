package pinochle;

/**
 * One card: a rank and a suit, written on the wire as two characters, rank
 * then suit ("AS" is the ace of spades, "TD" the ten of diamonds).
 *
 * <p>The protocol writes "??" for a card you may not see; {@link #parse}
 * returns {@code null} for it.
 */
public record Card(Rank rank, Suit suit) {

    /** Ranks from high to low: within a suit the ten beats the king. */
    public enum Rank {
        ACE('A'), TEN('T'), KING('K'), QUEEN('Q'), JACK('J'), NINE('9');

        public final char symbol;

        Rank(char symbol) {
            this.symbol = symbol;
        }

        /** True when this rank beats {@code other} in the same suit. */
        public boolean beats(Rank other) {
            return ordinal() < other.ordinal();
        }

        public static Rank of(char symbol) {
            for (Rank r : values()) {
                if (r.symbol == Character.toUpperCase(symbol)) return r;
            }
            throw new IllegalArgumentException("no such rank: " + symbol);
        }
    }

    public enum Suit {
        CLUBS('C'), DIAMONDS('D'), HEARTS('H'), SPADES('S');

        public final char symbol;

        Suit(char symbol) {
            this.symbol = symbol;
        }

        public static Suit of(char symbol) {
            for (Suit s : values()) {
                if (s.symbol == Character.toUpperCase(symbol)) return s;
            }
            throw new IllegalArgumentException("no such suit: " + symbol);
        }

        /** "C" -> CLUBS; "-" (no trump yet) -> null. */
        public static Suit parseOrNone(String text) {
            return text.equals("-") ? null : of(text.charAt(0));
        }

        @Override
        public String toString() {
            return String.valueOf(symbol);
        }
    }

    /** "AS" -> the ace of spades; "??" (a hidden card) -> null. */
    public static Card parse(String text) {
        if (text.equals("??")) return null;
        if (text.length() != 2) throw new IllegalArgumentException("not a card: " + text);
        return new Card(Rank.of(text.charAt(0)), Suit.of(text.charAt(1)));
    }

    /** "-" -> null (no card), else as {@link #parse}. */
    public static Card parseOrNone(String text) {
        return text.equals("-") ? null : parse(text);
    }

    /** "AS,TD,KH" -> [AS, TD, KH]; "-" -> []. Used by the state line. */
    public static java.util.List<Card> parseList(String text) {
        java.util.List<Card> cards = new java.util.ArrayList<>();
        if (text.isEmpty() || text.equals("-")) return cards;
        for (String t : text.split(",")) cards.add(parse(t));
        return cards;
    }

    @Override
    public String toString() {
        return "" + rank.symbol + suit.symbol;
    }
}
