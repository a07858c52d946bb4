using System;
using System.Collections.Generic;
using System.Linq;

// Every line the referee sends, as a C# type (PROTOCOL.md, sections 3, 9, 10).
//
// Message.Parse turns one line into one of the classes below. A line this kit
// does not know, or cannot read, becomes an Unknown: the protocol says to
// ignore it, so later referees can add messages without breaking your bot.
//
// Conventions: seats are numbers from 0; a card the protocol writes as "??"
// (hidden) is null; "-" for "nobody" or "none" is null.
namespace Pinochle
{
    public abstract class Message
    {
        /// <summary>One line from the referee as a message; Unknown for anything unknown or unreadable.</summary>
        public static Message Parse(string line)
        {
            string[] t = line.Trim().Split(new[] { ' ', '\t' }, StringSplitOptions.RemoveEmptyEntries);
            if (t.Length == 0) return new Unknown(line);
            try
            {
                switch (t[0])
                {
                    case "pinochle": return new Hello(Num(t[1]));
                    case "setoption": return new SetOption(t[1], t.Length > 2 ? t[2] : "");
                    case "ping": return new Ping(t.Length > 1 ? t[1] : "");
                    case "matchend": return new MatchEnd();
                    case "quit": return new Quit();
                    case "game": return new NewGame(t[1], t[2], Num(t[3]), Num(t[4]), KeyValues(t, 5));
                    case "rule": return ParseRule(t);
                    case "state": return new State(StateLine.Parse(t.Skip(1)));
                    case "deal": return new Deal(Num(t[1]), Num(t[2]), Card.ParseOrNone(t[3]), Cards(t, 4));
                    case "bonus": return new Bonus(Num(t[1]), Num(t[2]), t.Length > 3 ? t[3] : "");
                    case "play": return ParsePlay(t);
                    case "trick": return new Trick(Num(t[1]), Num(t[2]));
                    case "draw": return new Draw(Num(t[1]), Card.Parse(t[2]));
                    case "meld": return new Meld(Num(t[1]), t[2], Num(t[3]), Cards(t, 4));
                    case "exchange": return new Exchange(Num(t[1]), Card.Parse(t[2]), Card.Parse(t[3]));
                    case "phase2": return new PhaseTwo(Num(t[1]));
                    case "claim": return new Claim(Num(t[1]), t[2] == "yes");
                    case "handend": return ParseHandEnd(t);
                    case "target": return new Target(Num(t[1]));
                    case "gameover": return ParseGameOver(t);
                    case "error": return new ErrorNotice(line.Trim().Substring(5).Trim());
                    case "bid": return new Bid(Num(t[1]), t[2] == "pass" ? (int?)null : Num(t[2]));
                    case "bidwon": return new BidWon(Num(t[1]), Num(t[2]));
                    case "redeal": return new Redeal(Num(t[1]));
                    case "kitty": return new Kitty(Cards(t, 1));
                    case "kittycard": return new KittyCard(Card.Parse(t[1]));
                    case "throwin": return new ThrowIn(Num(t[1]));
                    case "trump": return new Trump(Num(t[1]), Card.ParseSuit(t[2][0]));
                    case "call": return new Call(Num(t[1]), Card.Parse(t[2]));
                    case "partner": return new Partner(Num(t[1]), t[2] == "-" ? (int?)null : Num(t[2]));
                    case "give": return new Give(Num(t[1]), Num(t[2]), Cards(t, 3));
                    case "bury": return new Bury(Num(t[1]), Cards(t, 2));
                    case "dummy": return new Dummy(Num(t[1]), Card.Parse(t[2]));
                    case "contract": return new Contract(Num(t[1]), Num(t[2]), t[3] == "made", Num(t[4]));
                    case "go": return new Go(t[1], Num(t[2]), Num(t[3]), t.Skip(4).SelectMany(LegalAction.Expand).ToList());
                    default: return new Unknown(line);
                }
            }
            catch (Exception)
            {
                return new Unknown(line);  // a bad number, a missing token...
            }
        }

        static Rule ParseRule(string[] t)
        {
            string[] values = t.Skip(2).ToArray();
            switch (t[1])
            {
                case "ranks": return new RuleRanks(values.Select(r => Card.ParseRank(r[0])).ToList());
                case "copies": return new RuleCopies(Num(values[0]));
                case "points":  // "A=11 T=10 ..."
                    return new RulePoints(values.ToDictionary(v => Card.ParseRank(v[0]), v => Num(v.Substring(v.IndexOf('=') + 1))));
                case "last-trick": return new RuleLastTrick(Num(values[0]));
                case "target": return new RuleTarget(Num(values[0]));
                case "meld": return new RuleMeld(values[0], values.Skip(1).Select(v => v == "-" ? (int?)null : Num(v)).ToList());
                case "follow": return new RuleFollow(Num(values[0]), values.Skip(1).ToList());
                case "first-lead": return new RuleFirstLead(values[0]);
                default: return new RuleOther(t[1], values.ToList());
            }
        }

        static Play ParsePlay(string[] t)
        {
            var action = new LegalAction(t[2]);
            Card card = action.Card;
            if (card == null) throw new FormatException("not a card play: " + t[2]);
            return new Play(Num(t[1]), card, action.FromTable);
        }

        static HandEnd ParseHandEnd(string[] t)
        {
            int points = Array.IndexOf(t, "points"), totals = Array.IndexOf(t, "totals");
            return new HandEnd(Num(t[1]), Ints(t, points + 1, totals), Ints(t, totals + 1, t.Length));
        }

        static GameOver ParseGameOver(string[] t)
        {
            int result = Array.IndexOf(t, "result"), totals = Array.IndexOf(t, "totals");
            var results = t.Skip(result + 1).Take(totals - result - 1)
                .Select(r => double.Parse(r, System.Globalization.CultureInfo.InvariantCulture)).ToList();
            return new GameOver(t[1], t[2] == "-" ? (int?)null : Num(t[2]), results, Ints(t, totals + 1, t.Length));
        }

        static int Num(string text) => int.Parse(text, System.Globalization.CultureInfo.InvariantCulture);

        static List<int> Ints(string[] t, int from, int to) => t.Skip(from).Take(to - from).Select(Num).ToList();

        static List<Card> Cards(string[] t, int from) => t.Skip(from).Select(Card.Parse).ToList();  // "??" -> null

        static Dictionary<string, string> KeyValues(string[] t, int from)
        {
            var map = new Dictionary<string, string>();
            foreach (string item in t.Skip(from))
            {
                int equals = item.IndexOf('=');
                if (equals > 0) map[item.Substring(0, equals)] = item.Substring(equals + 1);
            }
            return map;
        }
    }

    // ------------------------------------------------------------------- session

    /// <summary>"pinochle 3": the greeting; answer with the handshake.</summary>
    public sealed class Hello : Message { public int Version { get; } public Hello(int version) { Version = version; } }

    /// <summary>"setoption NAME VALUE": the value of an option you declared, before the first game.</summary>
    public sealed class SetOption : Message
    {
        public string Name { get; }
        public string Value { get; }
        public SetOption(string name, string value) { Name = name; Value = value; }
    }

    /// <summary>"ping TOKEN": answer "pong TOKEN" at once.</summary>
    public sealed class Ping : Message { public string Token { get; } public Ping(string token) { Token = token; } }

    /// <summary>"matchend": no more games.</summary>
    public sealed class MatchEnd : Message { }

    /// <summary>"quit": exit now.</summary>
    public sealed class Quit : Message { }

    /// <summary>Any line this kit does not know: ignore it.</summary>
    public sealed class Unknown : Message { public string Line { get; } public Unknown(string line) { Line = line; } }

    // ---------------------------------------------------------------- game start

    /// <summary>"game ID VARIANT SEAT PLAYERS key=value...": a new game; forget the old one.</summary>
    public sealed class NewGame : Message
    {
        public string Id { get; }
        public string Variant { get; }
        public int Seat { get; }
        public int Players { get; }
        public Dictionary<string, string> Options { get; }
        public NewGame(string id, string variant, int seat, int players, Dictionary<string, string> options)
        { Id = id; Variant = variant; Seat = seat; Players = players; Options = options; }
    }

    /// <summary>"rule KEY VALUE...": one rule of the game that has just begun (version 3).</summary>
    public abstract class Rule : Message { }

    /// <summary>"rule ranks A T K Q J 9": the ranks in the deck, high to low.</summary>
    public sealed class RuleRanks : Rule { public List<Rank> Ranks { get; } public RuleRanks(List<Rank> ranks) { Ranks = ranks; } }

    /// <summary>"rule copies 2": copies of each card (4 in the double deck).</summary>
    public sealed class RuleCopies : Rule { public int Copies { get; } public RuleCopies(int copies) { Copies = copies; } }

    /// <summary>"rule points A=11 T=10 ...": counter points of each rank taken in tricks.</summary>
    public sealed class RulePoints : Rule
    {
        public Dictionary<Rank, int> Points { get; }
        public RulePoints(Dictionary<Rank, int> points) { Points = points; }
    }

    /// <summary>"rule last-trick 10": the bonus for the last trick of a hand.</summary>
    public sealed class RuleLastTrick : Rule { public int Points { get; } public RuleLastTrick(int points) { Points = points; } }

    /// <summary>"rule target 1000": the score that wins the game.</summary>
    public sealed class RuleTarget : Rule { public int Target { get; } public RuleTarget(int target) { Target = target; } }

    /// <summary>
    /// "rule meld KIND ONCE TWICE [THRICE FOUR-TIMES]": the value of a meld made once,
    /// twice ("double-"), three and four times; a null entry ("-") means that many is no meld.
    /// </summary>
    public sealed class RuleMeld : Rule
    {
        public string Kind { get; }
        public List<int?> Values { get; }
        public RuleMeld(string kind, List<int?> values) { Kind = kind; Values = values; }
    }

    /// <summary>"rule follow 1 free" / "rule follow 2 suit trump head": the follow duties of a phase.</summary>
    public sealed class RuleFollow : Rule
    {
        public int Phase { get; }
        public List<string> Duties { get; }
        public RuleFollow(int phase, List<string> duties) { Phase = phase; Duties = duties; }
    }

    /// <summary>"rule first-lead trump": the first card led in a hand must be a trump if the leader has one.</summary>
    public sealed class RuleFirstLead : Rule { public string Requirement { get; } public RuleFirstLead(string requirement) { Requirement = requirement; } }

    /// <summary>A rule line with a key this kit does not know.</summary>
    public sealed class RuleOther : Rule
    {
        public string Key { get; }
        public List<string> Values { get; }
        public RuleOther(string key, List<string> values) { Key = key; Values = values; }
    }

    /// <summary>"state key=value...": what you may know now, before each request (version 3, "want state").</summary>
    public sealed class State : Message { public StateLine Line { get; } public State(StateLine line) { Line = line; } }

    // -------------------------------------------------------------------- a hand

    /// <summary>"deal HAND DEALER TURNUP CARD...": your cards; Turnup is null in the bidding games ("-").</summary>
    public sealed class Deal : Message
    {
        public int Hand { get; }
        public int Dealer { get; }
        public Card Turnup { get; }
        public List<Card> Cards { get; }
        public Deal(int hand, int dealer, Card turnup, List<Card> cards) { Hand = hand; Dealer = dealer; Turnup = turnup; Cards = cards; }
    }

    /// <summary>"bonus SEAT POINTS REASON": points outside melds and tricks (e.g. dix-turnup).</summary>
    public sealed class Bonus : Message
    {
        public int Seat { get; }
        public int Points { get; }
        public string Reason { get; }
        public Bonus(int seat, int points, string reason) { Seat = seat; Points = points; Reason = reason; }
    }

    /// <summary>"play SEAT AS" or "play SEAT table:AS": a card played to the trick.</summary>
    public sealed class Play : Message
    {
        public int Seat { get; }
        public Card Card { get; }
        public bool FromTable { get; }
        public Play(int seat, Card card, bool fromTable) { Seat = seat; Card = card; FromTable = fromTable; }
    }

    /// <summary>"trick WINNER POINTS": the trick is complete.</summary>
    public sealed class Trick : Message
    {
        public int Winner { get; }
        public int Points { get; }
        public Trick(int winner, int points) { Winner = winner; Points = points; }
    }

    /// <summary>"draw SEAT CARD": a seat drew from the stock; Card is null when hidden ("??").</summary>
    public sealed class Draw : Message
    {
        public int Seat { get; }
        public Card Card { get; }
        public Draw(int seat, Card card) { Seat = seat; Card = card; }
    }

    /// <summary>"meld SEAT KIND POINTS CARD...": a seat melded (the cards it took from its hand).</summary>
    public sealed class Meld : Message
    {
        public int Seat { get; }
        public string Kind { get; }
        public int Points { get; }
        public List<Card> Cards { get; }
        public Meld(int seat, string kind, int points, List<Card> cards) { Seat = seat; Kind = kind; Points = points; Cards = cards; }
    }

    /// <summary>"exchange SEAT DIX TAKEN": the dix went under the stock, the old turn-up into the seat's hand.</summary>
    public sealed class Exchange : Message
    {
        public int Seat { get; }
        public Card Dix { get; }
        public Card Taken { get; }
        public Exchange(int seat, Card dix, Card taken) { Seat = seat; Dix = dix; Taken = taken; }
    }

    /// <summary>"phase2 LEADER": the stock is used up; melds go back to the hands; strict tricks from now.</summary>
    public sealed class PhaseTwo : Message { public int Leader { get; } public PhaseTwo(int leader) { Leader = leader; } }

    /// <summary>"claim SEAT yes|no": a seat claimed the game, rightly or not.</summary>
    public sealed class Claim : Message
    {
        public int Seat { get; }
        public bool Success { get; }
        public Claim(int seat, bool success) { Seat = seat; Success = success; }
    }

    /// <summary>"handend HAND points P... totals T...": the hand is over.</summary>
    public sealed class HandEnd : Message
    {
        public int Hand { get; }
        public List<int> Points { get; }
        public List<int> Totals { get; }
        public HandEnd(int hand, List<int> points, List<int> totals) { Hand = hand; Points = points; Totals = totals; }
    }

    /// <summary>"target N": the target score rose to N (tiebreak=play-on).</summary>
    public sealed class Target : Message { public int Value { get; } public Target(int value) { Value = value; } }

    /// <summary>"gameover TERMINATION SEAT|- result R... totals T...": Culprit is null for "-".</summary>
    public sealed class GameOver : Message
    {
        public string Termination { get; }
        public int? Culprit { get; }
        public List<double> Result { get; }
        public List<int> Totals { get; }
        public GameOver(string termination, int? culprit, List<double> result, List<int> totals)
        { Termination = termination; Culprit = culprit; Result = result; Totals = totals; }
    }

    /// <summary>"error TEXT": why your last action was refused.</summary>
    public sealed class ErrorNotice : Message { public string Text { get; } public ErrorNotice(string text) { Text = text; } }

    // --------------------------------------------------------- the bidding games

    /// <summary>"bid SEAT AMOUNT|pass": Amount is null for a pass.</summary>
    public sealed class Bid : Message
    {
        public int Seat { get; }
        public int? Amount { get; }
        public Bid(int seat, int? amount) { Seat = seat; Amount = amount; }
    }

    /// <summary>"bidwon SEAT AMOUNT": the auction is over.</summary>
    public sealed class BidWon : Message
    {
        public int Seat { get; }
        public int Amount { get; }
        public BidWon(int seat, int amount) { Seat = seat; Amount = amount; }
    }

    /// <summary>"redeal DEALER": everybody passed; a new deal follows.</summary>
    public sealed class Redeal : Message { public int Dealer { get; } public Redeal(int dealer) { Dealer = dealer; } }

    /// <summary>"kitty CARD...": the kitty, shown to everybody; the bid winner takes it.</summary>
    public sealed class Kitty : Message { public List<Card> Cards { get; } public Kitty(List<Card> cards) { Cards = cards; } }

    /// <summary>"kittycard CARD": one more kitty card turned during the auction (kitty-auction).</summary>
    public sealed class KittyCard : Message { public Card Card { get; } public KittyCard(Card card) { Card = card; } }

    /// <summary>"throwin SEAT": the bid winner conceded the hand.</summary>
    public sealed class ThrowIn : Message { public int Seat { get; } public ThrowIn(int seat) { Seat = seat; } }

    /// <summary>"trump SEAT SUIT": the bid winner declared trump.</summary>
    public sealed class Trump : Message
    {
        public int Seat { get; }
        public Suit Suit { get; }
        public Trump(int seat, Suit suit) { Seat = seat; Suit = suit; }
    }

    /// <summary>"call SEAT CARD": the bid winner called a card (five players).</summary>
    public sealed class Call : Message
    {
        public int Seat { get; }
        public Card Card { get; }
        public Call(int seat, Card card) { Seat = seat; Card = card; }
    }

    /// <summary>"partner BIDDER SEAT|-": who holds the called card; null when the bidder plays alone.</summary>
    public sealed class Partner : Message
    {
        public int Bidder { get; }
        public int? Seat { get; }
        public Partner(int bidder, int? seat) { Bidder = bidder; Seat = seat; }
    }

    /// <summary>"give FROM TO CARD...": cards passed between partners; null entries are hidden.</summary>
    public sealed class Give : Message
    {
        public int From { get; }
        public int To { get; }
        public List<Card> Cards { get; }
        public Give(int from, int to, List<Card> cards) { From = from; To = to; Cards = cards; }
    }

    /// <summary>"bury SEAT CARD...": cards the bid winner buried; null entries are hidden.</summary>
    public sealed class Bury : Message
    {
        public int Seat { get; }
        public List<Card> Cards { get; }
        public Bury(int seat, List<Card> cards) { Seat = seat; Cards = cards; }
    }

    /// <summary>"dummy SEAT CARD": the dummy's top card went to the trick's winner (two-handed-dummy).</summary>
    public sealed class Dummy : Message
    {
        public int Seat { get; }
        public Card Card { get; }
        public Dummy(int seat, Card card) { Seat = seat; Card = card; }
    }

    /// <summary>"contract BIDDER BID made|set POINTS".</summary>
    public sealed class Contract : Message
    {
        public int Bidder { get; }
        public int BidAmount { get; }
        public bool Made { get; }
        public int Points { get; }
        public Contract(int bidder, int bid, bool made, int points) { Bidder = bidder; BidAmount = bid; Made = made; Points = points; }
    }

    // ------------------------------------------------------------------ requests

    /// <summary>
    /// "go DECISION TIME-LEFT-MS BANK-MS ACTION...": reply with exactly one action.
    /// Legal is every legal action, with bid ranges already expanded into single
    /// bids and meld points split off (see LegalAction).
    /// </summary>
    public sealed class Go : Message
    {
        public string Decision { get; }
        public int TimeLeftMs { get; }
        public int BankMs { get; }
        public List<LegalAction> Legal { get; }
        public Go(string decision, int timeLeftMs, int bankMs, List<LegalAction> legal)
        { Decision = decision; TimeLeftMs = timeLeftMs; BankMs = bankMs; Legal = legal; }
    }
}
