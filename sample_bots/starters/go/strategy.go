// ==================================================================
// YOUR BOT'S THINKING GOES HERE: replace Choose (and its helpers).
// ==================================================================
//
// Choose gets the game model (your hand, trump, the trick, the scores, the
// last state line: see model.go) and the request, and returns one of
// request.Offers. Whatever it returns, main.go checks it against the offers
// and falls back to the first offer if it is not one of them, so a bug here
// costs a bad move, not the game.
//
// The strategy below is deliberately simple, and legal in every variant:
//   - bid: pass when allowed, else the lowest bid;
//   - trump: the offered suit you hold most cards of;
//   - meld: the offered meld that scores most;
//   - lead: your lowest card, a non-trump if you have one;
//   - follow: the lowest card that would win the trick, else the lowest card;
//   - claim: only when your score has reached the target;
//   - give, bury, call, take and anything new: the first offer.

package main

// Choose picks the action to reply to request.
func Choose(g *Model, request *Request) Action {
	offers := request.Offers

	// A claim ends the game: won if you have reached the target, lost if not.
	for _, o := range offers {
		if o.Action.Kind == ActClaim && g.Target > 0 && g.MyScoreNow() >= g.Target {
			return o.Action
		}
	}

	var chosen *Action
	switch request.Decision {
	case "bid":
		chosen = chooseBid(offers)
	case "trump":
		chosen = chooseTrump(g, offers)
	case "meld":
		chosen = chooseMeld(offers)
	case "lead", "follow":
		chosen = chooseCard(g, offers)
	}
	// give, bury, call, take, decisions this kit does not know, or no choice made
	if chosen == nil {
		chosen = firstOffer(offers)
	}
	if chosen == nil {
		return Action{Kind: ActPass}
	}
	return *chosen
}

// firstOffer is the first offer that is a real action (not a claim, not an
// unparsed token).
func firstOffer(offers []Offer) *Action {
	for i := range offers {
		if k := offers[i].Action.Kind; k != ActClaim && k != ActOther {
			return &offers[i].Action
		}
	}
	if len(offers) > 0 {
		return &offers[0].Action
	}
	return nil
}

// chooseBid passes if allowed, else bids the lowest amount.
func chooseBid(offers []Offer) *Action {
	var lowest *Action
	for i := range offers {
		a := &offers[i].Action
		if a.Kind == ActPass {
			return a
		}
		if a.Kind == ActBid && (lowest == nil || a.Amount < lowest.Amount) {
			lowest = a
		}
	}
	return lowest
}

// chooseTrump names the offered suit with the most cards in the hand (the
// first offered on a tie).
func chooseTrump(g *Model, offers []Offer) *Action {
	var best *Action
	bestCount := -1
	for i := range offers {
		a := &offers[i].Action
		if a.Kind != ActTrump {
			continue
		}
		count := 0
		for _, c := range g.Hand {
			if c.Suit == a.Suit {
				count++
			}
		}
		if count > bestCount {
			best, bestCount = a, count
		}
	}
	return best
}

// chooseMeld makes the meld that scores most (the first offered on a tie).
func chooseMeld(offers []Offer) *Action {
	var best *Offer
	for i := range offers {
		o := &offers[i]
		if o.Action.Kind == ActMeld && (best == nil || o.Points > best.Points) {
			best = o
		}
	}
	if best == nil {
		return nil // the first offer, which is pass
	}
	return &best.Action
}

// chooseCard leads the lowest card, or follows with the lowest card that
// wins the trick, else the lowest. "Lowest" puts every non-trump before
// every trump.
func chooseCard(g *Model, offers []Offer) *Action {
	lower := func(a, b Card) bool {
		if g.IsTrump(a) != g.IsTrump(b) {
			return !g.IsTrump(a)
		}
		return a.Rank < b.Rank
	}
	var lowest, lowestWinner *Action
	for i := range offers {
		a := &offers[i].Action
		if !a.IsPlay() {
			continue
		}
		if lowest == nil || lower(a.Card, lowest.Card) {
			lowest = a
		}
		if len(g.Trick) > 0 && g.WouldWin(a.Card) && (lowestWinner == nil || lower(a.Card, lowestWinner.Card)) {
			lowestWinner = a
		}
	}
	if lowestWinner != nil {
		return lowestWinner
	}
	return lowest
}
