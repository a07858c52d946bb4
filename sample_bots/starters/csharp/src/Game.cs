using System.Collections.Generic;
using System.Linq;

namespace Pinochle
{
    /// <summary>A card played to the current trick, and by whom (-1: not known).</summary>
    public sealed class Played
    {
        public int Seat { get; }
        public Card Card { get; }
        public Played(int seat, Card card) { Seat = seat; Card = card; }
    }

    /// <summary>
    /// A small model of the game, kept up to date from the referee's messages.
    ///
    /// It follows the events (deal, play, trick, draw, meld...) and, because this
    /// kit asks for them ("want state"), corrects itself from every state line:
    /// if an event was missed or misread, the state line that comes before the
    /// next request puts the hand, trump and trick right again.
    /// </summary>
    public sealed class Game
    {
        // The game: from the "game" line and the "rule" lines.
        public string Id = "";
        public string Variant = "";
        public int Seat;
        public int Players = 2;
        public Dictionary<string, string> Options = new Dictionary<string, string>();
        public List<Rank> Ranks = new List<Rank> { Rank.Ace, Rank.Ten, Rank.King, Rank.Queen, Rank.Jack, Rank.Nine };
        public int Copies = 2;
        public Dictionary<Rank, int> CardPoints = new Dictionary<Rank, int>();
        public int LastTrickBonus;
        public int TargetScore;
        public Dictionary<string, List<int?>> MeldValues = new Dictionary<string, List<int?>>();

        // The hand in progress.
        public int HandNumber;
        public int Dealer;
        public bool HasStock;                                  // two-handed with a stock (a turn-up was dealt)
        public readonly List<Card> Hand = new List<Card>();    // concealed cards in your hand
        public readonly List<Card> Table = new List<Card>();   // your melded cards on the table (stock games, phase 1)
        public Suit? TrumpSuit;                                // null until known
        public Card Turnup;                                    // the face-up card under the stock, or null
        public readonly List<Played> CurrentTrick = new List<Played>();  // the trick in play, in order
        public int? Bidder;                                    // the auction's winner (bidding games), or null
        public int? WinningBid;
        public int? PartnerSeat;                               // the bidder's partner (five players), or null
        public int[] HandPoints = new int[2];                  // trick points this hand, per seat
        public int[] Totals = new int[2];                      // game totals, per seat
        public StateLine LastState;                            // the latest state line, or null
        readonly List<Card> setAside = new List<Card>();       // cards we gave or buried, not yet confirmed

        /// <summary>Updates the model from one message (requests and session messages change nothing).</summary>
        public void Apply(Message message)
        {
            // (Mono's mcs does not know "switch (message) { case NewGame g: ... }"; an if-chain works everywhere.)
            if (message is NewGame g)
            {
                Id = g.Id; Variant = g.Variant; Seat = g.Seat; Players = g.Players; Options = g.Options;
                TargetScore = Options.TryGetValue("target", out string target) ? int.Parse(target) : 0;
                Totals = new int[Players];
                MeldValues.Clear();
                CardPoints.Clear();
                StartHand(0, 0);
                LastState = null;
            }
            else if (message is RuleRanks ranks) Ranks = ranks.Ranks;
            else if (message is RuleCopies copies) Copies = copies.Copies;
            else if (message is RulePoints points) CardPoints = new Dictionary<Rank, int>(points.Points);
            else if (message is RuleLastTrick lastTrick) LastTrickBonus = lastTrick.Points;
            else if (message is RuleTarget ruleTarget) TargetScore = ruleTarget.Target;
            else if (message is RuleMeld meldRule) MeldValues[meldRule.Kind] = meldRule.Values;
            else if (message is Target newTarget) TargetScore = newTarget.Value;
            else if (message is Deal deal)
            {
                StartHand(deal.Hand, deal.Dealer);
                Hand.AddRange(deal.Cards);
                Turnup = deal.Turnup;
                HasStock = Turnup != null;
                TrumpSuit = HasStock ? Turnup.Suit : (Suit?)null;
            }
            else if (message is Play play)
            {
                if (CurrentTrick.Count == Players) CurrentTrick.Clear();  // safety: a trick line we did not see
                CurrentTrick.Add(new Played(play.Seat, play.Card));
                if (play.Seat == Seat) (play.FromTable ? Table : Hand).Remove(play.Card);
            }
            else if (message is Trick trick)
            {
                CurrentTrick.Clear();
                if (trick.Winner < HandPoints.Length) HandPoints[trick.Winner] += trick.Points;
            }
            else if (message is Draw draw)
            {
                if (draw.Seat == Seat && draw.Card != null) Hand.Add(draw.Card);
                if (draw.Card != null && draw.Card.Equals(Turnup)) Turnup = null;  // the turn-up was taken
            }
            else if (message is Meld meld)
            {
                // With a stock melded cards go to the table; in the bidding games meld is only shown.
                if (meld.Seat == Seat && HasStock)
                    foreach (Card c in meld.Cards) { Hand.Remove(c); Table.Add(c); }
            }
            else if (message is Exchange exchange)
            {
                if (exchange.Seat == Seat)
                {
                    if (!Table.Remove(exchange.Dix)) Hand.Remove(exchange.Dix);
                    Hand.Add(exchange.Taken);
                }
                Turnup = exchange.Dix;
            }
            else if (message is PhaseTwo)
            {
                Hand.AddRange(Table);
                Table.Clear();
                Turnup = null;
            }
            else if (message is HandEnd handEnd)
            {
                for (int s = 0; s < Totals.Length && s < handEnd.Totals.Count; s++) Totals[s] = handEnd.Totals[s];
            }
            else if (message is BidWon bidWon) { Bidder = bidWon.Seat; WinningBid = bidWon.Amount; }
            else if (message is Kitty kitty)
            {
                if (Bidder == Seat) Hand.AddRange(kitty.Cards);
            }
            else if (message is Trump trump) TrumpSuit = trump.Suit;
            else if (message is Partner partner) PartnerSeat = partner.Seat;
            else if (message is Give give)
            {
                foreach (Card c in give.Cards.Where(c => c != null))
                {
                    if (give.From == Seat) LeaveHand(c);
                    if (give.To == Seat) Hand.Add(c);
                }
            }
            else if (message is Bury bury)
            {
                if (bury.Seat == Seat) foreach (Card c in bury.Cards.Where(c => c != null)) LeaveHand(c);
            }
            else if (message is State state) ApplyState(state.Line);
        }

        /// <summary>
        /// Called with each reply we send. A card we give or bury leaves the hand at
        /// once: the referee confirms them only in one "give"/"bury" line after the
        /// last one (and the called card, in five-handed games, leaves without a reply).
        /// </summary>
        public void Replied(LegalAction action)
        {
            Card c = action.TargetCard;
            if (c != null && action.Verb != "call" && Hand.Remove(c)) setAside.Add(c);
        }

        /// <summary>A card a give or bury line says left our hand: unless we took it out already.</summary>
        void LeaveHand(Card c)
        {
            if (!setAside.Remove(c)) Hand.Remove(c);
        }

        /// <summary>The state line is the referee's own account: trust it over our bookkeeping.</summary>
        void ApplyState(StateLine state)
        {
            LastState = state;
            List<Card> cards = state.Cards;
            if (cards != null)
            {
                if (!SameCards(cards, Hand)) Program.Log($"model drift: we thought we held {string.Join(",", Hand)}, the state says {string.Join(",", cards)}");
                Hand.Clear();
                Hand.AddRange(cards);
            }
            if (state.Has("trump")) TrumpSuit = state.Trump;
            if (state.Has("turnup")) Turnup = state.Turnup;
            List<List<Card>> tables = state.Tables;
            if (tables != null && Seat < tables.Count) { Table.Clear(); Table.AddRange(tables[Seat]); }
            List<Card> trick = state.Trick;
            int? leader = state.Leader;
            if (trick != null)
            {
                CurrentTrick.Clear();
                for (int i = 0; i < trick.Count; i++)
                    CurrentTrick.Add(new Played(leader.HasValue ? (leader.Value + i) % Players : -1, trick[i]));
            }
            Totals = state.Totals ?? Totals;
            HandPoints = state.Tricks ?? HandPoints;
            TargetScore = state.Target ?? TargetScore;
        }

        static bool SameCards(List<Card> a, List<Card> b)
        {
            var rest = new List<Card>(b);
            return a.All(c => rest.Remove(c)) && rest.Count == 0;
        }

        void StartHand(int number, int dealer)
        {
            HandNumber = number;
            Dealer = dealer;
            Hand.Clear();
            Table.Clear();
            CurrentTrick.Clear();
            setAside.Clear();
            TrumpSuit = null;
            Turnup = null;
            Bidder = null;
            WinningBid = null;
            PartnerSeat = null;
            HandPoints = new int[Players];
        }

        // ---------------------------------------------------------------- card logic

        /// <summary>True when <paramref name="card"/> beats <paramref name="best"/>, the best card of a trick so far.</summary>
        public bool Beats(Card card, Card best)
        {
            if (card.Suit == best.Suit) return Card.RankBeats(card.Rank, best.Rank);  // first of two equal cards wins
            return card.Suit == TrumpSuit;  // a trump beats any other suit; any other card never wins
        }

        /// <summary>The card winning the current trick so far, or null when no card has been played.</summary>
        public Card WinningCard()
        {
            Card best = null;
            foreach (Played p in CurrentTrick)
                if (best == null || Beats(p.Card, best)) best = p.Card;
            return best;
        }

        /// <summary>Counter points of a card taken in a trick (from the "rule points" line).</summary>
        public int PointsOf(Card card) => CardPoints.TryGetValue(card.Rank, out int n) ? n : 0;

        /// <summary>How many cards of <paramref name="suit"/> you hold.</summary>
        public int Count(Suit suit) => Hand.Count(c => c.Suit == suit);
    }
}
