package pinochle;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One legal action offered in a {@code go} request.
 *
 * <p>{@code token} is exactly what you write back as your reply ("AS",
 * "table:KS", "royal:KH,QH", "bid:25", "trump:H", "pass"...). For a version 3
 * meld the referee sends "royal:KH,QH=40": the token is then "royal:KH,QH"
 * and {@code points} is 40 (the reply may carry the "=40" or not). For every
 * other action {@code points} is null.
 */
public record Action(String token, Integer points) {

    /** Prefixes of the actions that are not melds. */
    private static final Set<String> NOT_MELDS =
            Set.of("table", "take", "bid", "trump", "call", "give", "bury");

    /**
     * The actions one token of a request stands for: usually one, but a range
     * of bids ("bid:21..555", "bid:65..100/5") stands for every bid in it.
     * Never reply with a range token: reply with one of the bids it expands to.
     */
    public static List<Action> expand(String token) {
        List<Action> actions = new ArrayList<>();
        int range = token.indexOf("..");
        if (token.startsWith("bid:") && range > 0) {
            int from = Integer.parseInt(token.substring(4, range));
            String rest = token.substring(range + 2);  // "555" or "100/5"
            int slash = rest.indexOf('/');
            int to = Integer.parseInt(slash < 0 ? rest : rest.substring(0, slash));
            int step = slash < 0 ? 1 : Integer.parseInt(rest.substring(slash + 1));
            for (int bid = from; bid <= to; bid += Math.max(step, 1)) {
                actions.add(new Action("bid:" + bid, null));
            }
            return actions;
        }
        int equals = token.lastIndexOf('=');  // "run:AH,TH,JH=110": a meld and its points
        if (equals > 0 && token.indexOf(':') > 0) {
            actions.add(new Action(token.substring(0, equals), Integer.parseInt(token.substring(equals + 1))));
        } else {
            actions.add(new Action(token, null));
        }
        return actions;
    }

    /** The word before the colon ("table", "bid", "royal"...), or the whole token ("pass", "AS", "claim"). */
    public String verb() {
        int colon = token.indexOf(':');
        return colon < 0 ? token : token.substring(0, colon);
    }

    /** What follows the colon ("25" in "bid:25", "KH,QH" in "royal:KH,QH"); "" when there is none. */
    public String argument() {
        int colon = token.indexOf(':');
        return colon < 0 ? "" : token.substring(colon + 1);
    }

    /**
     * The card this action plays to the trick: "AS" from the hand, or
     * "table:AS" (also "table:KS@kings", a named copy) from your melds on the
     * table; null when the action plays no card.
     */
    public Card card() {
        if (token.length() == 2 && !token.equals("??")) {
            try {
                return Card.parse(token);
            } catch (IllegalArgumentException notACard) {
                return null;
            }
        }
        if (verb().equals("table")) {
            String arg = argument();
            int at = arg.indexOf('@');
            return Card.parse(at < 0 ? arg : arg.substring(0, at));
        }
        return null;
    }

    /** True for "table:AS": the card comes from your melds on the table. */
    public boolean fromTable() {
        return verb().equals("table");
    }

    /** True for a meld ("royal:KH,QH", "double-aces:AC,AC,..."). */
    public boolean isMeld() {
        return points != null || (token.indexOf(':') > 0 && !NOT_MELDS.contains(verb()));
    }

    /** The cards a meld takes from your hand (royal:KH,QH -> [KH, QH]); [] for other actions. */
    public List<Card> meldCards() {
        return isMeld() ? Card.parseList(argument()) : List.of();
    }

    /** The amount of "bid:25"; null for anything else ("pass" included). */
    public Integer bid() {
        return verb().equals("bid") ? Integer.valueOf(argument()) : null;
    }

    /** The suit of "trump:H"; null for anything else ("throw-in" included). */
    public Card.Suit trumpSuit() {
        return verb().equals("trump") ? Card.Suit.of(argument().charAt(0)) : null;
    }

    /** The card of "give:AS", "bury:AS", "call:AS"; null for anything else. */
    public Card targetCard() {
        return switch (verb()) {
            case "give", "bury", "call" -> Card.parse(argument());
            default -> null;
        };
    }

    @Override
    public String toString() {
        return points == null ? token : token + "=" + points;
    }
}
