using System.Collections.Generic;
using System.Linq;
using System.Text;

namespace Pinochle
{
    /// <summary>One seat's bid in the auction: Amount is null for a pass.</summary>
    public sealed class SeatBid
    {
        public int Seat { get; }
        public int? Amount { get; }

        public SeatBid(int seat, int? amount)
        {
            Seat = seat;
            Amount = amount;
        }

        /// <summary>"0:25" or "2:pass".</summary>
        public static SeatBid Parse(string text)
        {
            int colon = text.IndexOf(':');
            string amount = text.Substring(colon + 1);
            return new SeatBid(int.Parse(text.Substring(0, colon)), amount == "pass" ? (int?)null : int.Parse(amount));
        }

        public override string ToString() => $"{Seat}:{(Amount.HasValue ? Amount.ToString() : "pass")}";
    }

    /// <summary>
    /// A <c>state</c> line (protocol 3, asked for with "want state"): everything
    /// this seat may know, sent just before each request.
    ///
    /// The line is kept as a plain dictionary key -> value, so a key this kit
    /// does not know is simply carried along (the referee adds new keys at the
    /// end over time). The typed properties below read the documented keys;
    /// each is null when its key is absent (an older referee, or a pile this
    /// variant does not have), so check before you use one.
    /// </summary>
    public sealed class StateLine
    {
        readonly Dictionary<string, string> fields = new Dictionary<string, string>();
        readonly List<string> order = new List<string>();

        /// <summary>The key=value tokens of "state hand=1 dealer=0 ...", without the word "state".</summary>
        public static StateLine Parse(IEnumerable<string> tokens)
        {
            var state = new StateLine();
            foreach (string token in tokens)
            {
                int equals = token.IndexOf('=');
                if (equals <= 0) continue;
                string key = token.Substring(0, equals);
                if (!state.fields.ContainsKey(key)) state.order.Add(key);
                state.fields[key] = token.Substring(equals + 1);
            }
            return state;
        }

        /// <summary>Every key, in the order sent.</summary>
        public IReadOnlyList<string> Keys => order;

        /// <summary>The raw value of any key, or null.</summary>
        public string Get(string key) => fields.TryGetValue(key, out string value) ? value : null;

        public bool Has(string key) => fields.ContainsKey(key);

        // ------------------------------------------------------------ documented keys

        /// <summary>hand=&lt;n&gt;: the hand number.</summary>
        public int? Hand => Int("hand");

        /// <summary>dealer=&lt;seat&gt;.</summary>
        public int? Dealer => Int("dealer");

        /// <summary>phase=1|2: with a stock, 1 while it lasts; bidding games, 1 until the first card is led.</summary>
        public int? Phase => Int("phase");

        /// <summary>trump=&lt;suit&gt;|-: null while trump is not known.</summary>
        public Suit? Trump => Has("trump") ? Card.ParseSuitOrNone(Get("trump")) : null;

        /// <summary>turnup=&lt;card&gt;|-: the face-up card under the stock; null when none.</summary>
        public Card Turnup => Has("turnup") ? Card.ParseOrNone(Get("turnup")) : null;

        /// <summary>cards=...: your concealed hand (cards you chose to pass or bury are gone already).</summary>
        public List<Card> Cards => CardList("cards");

        /// <summary>tables=&lt;cards&gt;/&lt;cards&gt;/...: each seat's melded cards on the table (games with a stock).</summary>
        public List<List<Card>> Tables => PerSeatCards("tables");

        /// <summary>leader=&lt;seat&gt;|-: who led the trick in play; null when none.</summary>
        public int? Leader => Int("leader");

        /// <summary>trick=...: the cards played to the trick in play, in order.</summary>
        public List<Card> Trick => CardList("trick");

        /// <summary>held=&lt;n&gt;/...: concealed cards each seat holds.</summary>
        public int[] Held => PerSeat("held");

        /// <summary>stock=&lt;n&gt;: face-down cards in the stock (not the turn-up), while there is one.</summary>
        public int? Stock => Int("stock");

        /// <summary>kitty=&lt;n&gt;: face-down cards in the kitty, while it lies there.</summary>
        public int? Kitty => Int("kitty");

        /// <summary>buried=&lt;n&gt;: cards the bid winner has buried.</summary>
        public int? Buried => Int("buried");

        /// <summary>dummy=&lt;n&gt;: face-down dummy cards (two-handed-dummy).</summary>
        public int? Dummy => Int("dummy");

        /// <summary>bid=&lt;seat&gt;:&lt;amount&gt;|-: the auction's winner and its bid; null before it is won.</summary>
        public SeatBid Bid => Has("bid") && Get("bid") != "-" ? SeatBid.Parse(Get("bid")) : null;

        /// <summary>partner=&lt;seat&gt;|-: the bid winner's called partner (five players).</summary>
        public int? Partner => Int("partner");

        /// <summary>meld=&lt;n&gt;/...: each seat's meld points this hand.</summary>
        public int[] Meld => PerSeat("meld");

        /// <summary>tricks=&lt;n&gt;/...: each seat's trick points this hand.</summary>
        public int[] Tricks => PerSeat("tricks");

        /// <summary>totals=&lt;n&gt;/...: the game totals before this hand.</summary>
        public int[] Totals => PerSeat("totals");

        /// <summary>unseen=&lt;card&gt;:&lt;n&gt;,...: every card you have not seen, with its number of copies.</summary>
        public Dictionary<Card, int> Unseen
        {
            get
            {
                string v = Get("unseen");
                if (v == null) return null;
                var counts = new Dictionary<Card, int>();
                if (v == "-") return counts;
                foreach (string item in v.Split(','))
                {
                    int colon = item.IndexOf(':');
                    counts[Card.Parse(item.Substring(0, colon))] = int.Parse(item.Substring(colon + 1));
                }
                return counts;
            }
        }

        // --------------------------------------- keys being added (may be absent: null)

        /// <summary>target=&lt;n&gt;: the score that wins the game now (it rises under tiebreak=play-on).</summary>
        public int? Target => Int("target");

        /// <summary>bids=&lt;seat&gt;:&lt;amount|pass&gt;,...|-: this hand's auction so far, in order.</summary>
        public List<SeatBid> Bids
        {
            get
            {
                string v = Get("bids");
                if (v == null) return null;
                if (v == "-") return new List<SeatBid>();
                return v.Split(',').Select(SeatBid.Parse).ToList();
            }
        }

        /// <summary>won=&lt;n&gt;/...: tricks won by each seat this hand.</summary>
        public int[] Won => PerSeat("won");

        /// <summary>known=&lt;cards&gt;/&lt;cards&gt;/...: per seat, concealed cards you know that seat holds.</summary>
        public List<List<Card>> Known => PerSeatCards("known");

        // ------------------------------------------------------------------- helpers

        int? Int(string key)
        {
            string v = Get(key);
            return v == null || v == "-" ? (int?)null : int.Parse(v);
        }

        List<Card> CardList(string key)
        {
            string v = Get(key);
            return v == null ? null : Card.ParseList(v);
        }

        int[] PerSeat(string key)
        {
            string v = Get(key);
            return v?.Split('/').Select(int.Parse).ToArray();
        }

        List<List<Card>> PerSeatCards(string key)
        {
            string v = Get(key);
            return v?.Split('/').Select(Card.ParseList).ToList();
        }

        public override string ToString()
        {
            var text = new StringBuilder("state");
            foreach (string key in order) text.Append(' ').Append(key).Append('=').Append(fields[key]);
            return text.ToString();
        }
    }
}
