using System;
using System.Collections.Generic;

namespace Pinochle
{
    /// <summary>Ranks from high to low: within a suit the ten beats the king.</summary>
    public enum Rank { Ace, Ten, King, Queen, Jack, Nine }

    public enum Suit { Clubs, Diamonds, Hearts, Spades }

    /// <summary>
    /// One card: a rank and a suit, written on the wire as two characters, rank
    /// then suit ("AS" is the ace of spades, "TD" the ten of diamonds). The
    /// protocol writes "??" for a card you may not see: <see cref="Parse"/>
    /// returns null for it.
    /// </summary>
    public sealed class Card : IEquatable<Card>
    {
        const string RankSymbols = "ATKQJ9";  // in the order of the Rank enum
        const string SuitSymbols = "CDHS";    // in the order of the Suit enum

        public Rank Rank { get; }
        public Suit Suit { get; }

        public Card(Rank rank, Suit suit)
        {
            Rank = rank;
            Suit = suit;
        }

        /// <summary>True when this rank beats <paramref name="other"/> in the same suit.</summary>
        public static bool RankBeats(Rank rank, Rank other) => rank < other;

        public static Rank ParseRank(char symbol)
        {
            int i = RankSymbols.IndexOf(char.ToUpperInvariant(symbol));
            if (i < 0) throw new FormatException("no such rank: " + symbol);
            return (Rank)i;
        }

        public static Suit ParseSuit(char symbol)
        {
            int i = SuitSymbols.IndexOf(char.ToUpperInvariant(symbol));
            if (i < 0) throw new FormatException("no such suit: " + symbol);
            return (Suit)i;
        }

        /// <summary>"C" -> Clubs; "-" (no trump yet) -> null.</summary>
        public static Suit? ParseSuitOrNone(string text) => text == "-" ? (Suit?)null : ParseSuit(text[0]);

        public static char Symbol(Rank rank) => RankSymbols[(int)rank];
        public static char Symbol(Suit suit) => SuitSymbols[(int)suit];

        /// <summary>"AS" -> the ace of spades; "??" (a hidden card) -> null.</summary>
        public static Card Parse(string text)
        {
            if (text == "??") return null;
            if (text.Length != 2) throw new FormatException("not a card: " + text);
            return new Card(ParseRank(text[0]), ParseSuit(text[1]));
        }

        /// <summary>"-" -> null (no card); otherwise as <see cref="Parse"/>.</summary>
        public static Card ParseOrNone(string text) => text == "-" ? null : Parse(text);

        /// <summary>"AS,TD,KH" -> [AS, TD, KH]; "-" -> []. Used by the state line.</summary>
        public static List<Card> ParseList(string text)
        {
            var cards = new List<Card>();
            if (text.Length == 0 || text == "-") return cards;
            foreach (string t in text.Split(',')) cards.Add(Parse(t));
            return cards;
        }

        public bool Equals(Card other) => !ReferenceEquals(other, null) && Rank == other.Rank && Suit == other.Suit;
        public override bool Equals(object obj) => Equals(obj as Card);
        public override int GetHashCode() => (int)Rank * 4 + (int)Suit;
        public override string ToString() => $"{Symbol(Rank)}{Symbol(Suit)}";
    }
}
