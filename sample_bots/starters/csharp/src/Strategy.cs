using System.Collections.Generic;
using System.Linq;

namespace Pinochle
{
    /// <summary>
    /// Your bot's thinking. <b>Replace <see cref="Choose"/> (and its helpers) with your own.</b>
    ///
    /// This one plays simply but always legally: it only ever returns one of the
    /// actions the referee offered. Keep that property when you change it: the
    /// referee ends the game, lost, on any action it did not offer.
    /// </summary>
    public sealed class Strategy
    {
        /// <summary>
        /// ======== THE METHOD TO REPLACE ========
        ///
        /// Called for every request. request.Decision says what is asked ("lead",
        /// "follow", "meld", "take", "bid", "trump", "call", "give", "bury", or
        /// something newer), request.Legal lists every legal action (bid ranges
        /// already expanded, meld points split off), and game holds what the bot
        /// knows (its hand, trump, the trick, the scores, the latest state line).
        /// Return one action from request.Legal.
        ///
        /// Time: request.TimeLeftMs is what this reply may take.
        /// </summary>
        public LegalAction Choose(Go request, Game game)
        {
            List<LegalAction> legal = request.Legal;
            switch (request.Decision)
            {
                case "bid": return ChooseBid(legal);
                case "trump": return ChooseTrump(legal, game);
                case "meld": return ChooseMeld(legal);
                case "lead":
                case "follow": return ChoosePlay(legal, game);
                // take, call, give, bury, and any decision added later: the first offered action
                default: return FirstOffered(legal);
            }
        }

        /// <summary>Pass when allowed; when a bid is forced, the lowest one.</summary>
        static LegalAction ChooseBid(List<LegalAction> legal)
        {
            LegalAction pass = legal.FirstOrDefault(a => a.Token == "pass");
            if (pass != null) return pass;
            return legal.Where(a => a.Bid.HasValue).OrderBy(a => a.Bid.Value).FirstOrDefault() ?? legal[0];
        }

        /// <summary>Trump: the offered suit we hold most cards of (never "throw-in").</summary>
        static LegalAction ChooseTrump(List<LegalAction> legal, Game game)
        {
            return legal.Where(a => a.TrumpSuit.HasValue)
                        .OrderByDescending(a => game.Count(a.TrumpSuit.Value))
                        .FirstOrDefault() ?? legal[0];
        }

        /// <summary>The meld that scores most; pass when there is none.</summary>
        static LegalAction ChooseMeld(List<LegalAction> legal)
        {
            return legal.Where(a => a.IsMeld)
                        .OrderByDescending(a => a.Points ?? 0)
                        .FirstOrDefault() ?? FirstOffered(legal);  // "pass" is the only other choice
        }

        /// <summary>
        /// Lead or follow: the cheapest card that wins the trick if there is one,
        /// else the cheapest card. "Cheapest" means a non-trump before a trump,
        /// then the lowest rank. Leading, every card "wins", so it leads its
        /// cheapest card.
        /// </summary>
        static LegalAction ChoosePlay(List<LegalAction> legal, Game game)
        {
            Card best = game.WinningCard();
            List<LegalAction> cards = legal.Where(a => a.Card != null)
                .OrderBy(a => a.Card.Suit == game.TrumpSuit)  // false (non-trump) first
                .ThenByDescending(a => a.Card.Rank)           // then 9, J, Q, ... A
                .ToList();
            if (cards.Count == 0) return FirstOffered(legal);
            return cards.FirstOrDefault(a => best == null || game.Beats(a.Card, best)) ?? cards[0];
        }

        /// <summary>The first offered action, but never "claim" (a wrong claim loses the game).</summary>
        public static LegalAction FirstOffered(List<LegalAction> legal)
        {
            return legal.FirstOrDefault(a => a.Token != "claim") ?? legal[0];
        }
    }
}
