using System;
using System.Collections.Generic;

namespace Pinochle
{
    /// <summary>
    /// One legal action offered in a <c>go</c> request.
    ///
    /// <see cref="Token"/> is exactly what you write back as your reply ("AS",
    /// "table:KS", "royal:KH,QH", "bid:25", "trump:H", "pass"...). For a version 3
    /// meld the referee sends "royal:KH,QH=40": the token is then "royal:KH,QH"
    /// and <see cref="Points"/> is 40 (the reply may carry the "=40" or not).
    /// For every other action Points is null.
    /// </summary>
    public sealed class LegalAction : IEquatable<LegalAction>
    {
        /// <summary>Prefixes of the actions that are not melds.</summary>
        static readonly HashSet<string> NotMelds =
            new HashSet<string> { "table", "take", "bid", "trump", "call", "give", "bury" };

        public string Token { get; }
        public int? Points { get; }

        public LegalAction(string token, int? points = null)
        {
            Token = token;
            Points = points;
        }

        /// <summary>
        /// The actions one token of a request stands for: usually one, but a range
        /// of bids ("bid:21..555", "bid:65..100/5") stands for every bid in it.
        /// Never reply with a range token: reply with one of the bids it expands to.
        /// </summary>
        public static IEnumerable<LegalAction> Expand(string token)
        {
            int range = token.IndexOf("..", StringComparison.Ordinal);
            if (token.StartsWith("bid:", StringComparison.Ordinal) && range > 0)
            {
                int from = int.Parse(token.Substring(4, range - 4));
                string rest = token.Substring(range + 2);  // "555" or "100/5"
                int slash = rest.IndexOf('/');
                int to = int.Parse(slash < 0 ? rest : rest.Substring(0, slash));
                int step = slash < 0 ? 1 : Math.Max(1, int.Parse(rest.Substring(slash + 1)));
                var bids = new List<LegalAction>();
                for (int bid = from; bid <= to; bid += step) bids.Add(new LegalAction("bid:" + bid));
                return bids;
            }
            int equals = token.LastIndexOf('=');  // "run:AH,TH,JH=110": a meld and its points
            if (equals > 0 && token.IndexOf(':') > 0)
                return new[] { new LegalAction(token.Substring(0, equals), int.Parse(token.Substring(equals + 1))) };
            return new[] { new LegalAction(token) };
        }

        /// <summary>The word before the colon ("table", "bid", "royal"...), or the whole token ("pass", "AS", "claim").</summary>
        public string Verb
        {
            get { int colon = Token.IndexOf(':'); return colon < 0 ? Token : Token.Substring(0, colon); }
        }

        /// <summary>What follows the colon ("25" in "bid:25"); "" when there is none.</summary>
        public string Argument
        {
            get { int colon = Token.IndexOf(':'); return colon < 0 ? "" : Token.Substring(colon + 1); }
        }

        /// <summary>
        /// The card this action plays to the trick: "AS" from the hand, or "table:AS"
        /// (also "table:KS@kings", a named copy) from your melds on the table;
        /// null when the action plays no card.
        /// </summary>
        public Card Card
        {
            get
            {
                if (Token.Length == 2 && Token != "??")
                {
                    try { return Card.Parse(Token); }
                    catch (FormatException) { return null; }
                }
                if (Verb != "table") return null;
                string arg = Argument;
                int at = arg.IndexOf('@');
                return Card.Parse(at < 0 ? arg : arg.Substring(0, at));
            }
        }

        /// <summary>True for "table:AS": the card comes from your melds on the table.</summary>
        public bool FromTable => Verb == "table";

        /// <summary>True for a meld ("royal:KH,QH", "double-aces:AC,AC,...").</summary>
        public bool IsMeld => Points.HasValue || (Token.IndexOf(':') > 0 && !NotMelds.Contains(Verb));

        /// <summary>The cards a meld takes from your hand (royal:KH,QH -> [KH, QH]).</summary>
        public List<Card> MeldCards => IsMeld ? Card.ParseList(Argument) : new List<Card>();

        /// <summary>The amount of "bid:25"; null for anything else ("pass" included).</summary>
        public int? Bid => Verb == "bid" ? int.Parse(Argument) : (int?)null;

        /// <summary>The suit of "trump:H"; null for anything else ("throw-in" included).</summary>
        public Suit? TrumpSuit => Verb == "trump" ? Card.ParseSuit(Argument[0]) : (Suit?)null;

        /// <summary>The card of "give:AS", "bury:AS", "call:AS"; null for anything else.</summary>
        public Card TargetCard => Verb == "give" || Verb == "bury" || Verb == "call" ? Card.Parse(Argument) : null;

        public bool Equals(LegalAction other) => !ReferenceEquals(other, null) && Token == other.Token && Points == other.Points;
        public override bool Equals(object obj) => Equals(obj as LegalAction);
        public override int GetHashCode() => Token.GetHashCode();
        public override string ToString() => Points.HasValue ? Token + "=" + Points : Token;
    }
}
