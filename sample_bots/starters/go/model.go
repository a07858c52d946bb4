// A small model of the game, kept up to date from the referee's events: the
// rules, your hand, trump, the trick in play and the scores.
//
// It follows the events itself, and whenever a `state` line arrives (the
// kit asks for one before every request) it takes the referee's word for
// everything the line restates, so a slip in the bookkeeping below never
// lasts beyond the next request.

package main

import "strconv"

// Rules are the rules of the current game, from its `rule` lines.
type Rules struct {
	Ranks          []Rank
	Copies         int
	Points         map[Rank]int
	LastTrick      int
	Target         int
	Melds          map[string][]int // meld kind -> value once, twice, ... (NoMeld: none)
	Follow         map[int][]string // phase -> duties: 1 -> [free], 2 -> [suit trump head]
	FirstLeadTrump bool
}

// PlayedCard is one card of the trick in play.
type PlayedCard struct {
	Seat int
	Card Card
}

// Model is everything the bot remembers about the game in progress.
type Model struct {
	// the game, from `game` and `rule` lines
	ID, Variant   string
	Seat, Players int
	Options       map[string]string // the variant's options (claim -> yes...)
	Rules         Rules
	Target        int   // the score that wins now (rule target, raised by `target` events)
	Totals        []int // the totals before the current hand, one per seat

	// the hand in progress
	HandNumber, Dealer int
	StockGame          bool // two-handed with a stock (its `deal` has a turn-up)
	Phase              int  // 1 while the stock lasts / until the play begins; then 2
	Trump              Suit // 0 while not known
	Turnup             MaybeCard
	Hand               []Card       // your concealed cards
	Table              []Card       // your melded cards on the table (stock games, first phase)
	Trick              []PlayedCard // the trick in play, in the order played
	Bidder, Bid        int          // the auction's winner (-1: none yet) and its bid
	Partner            int          // the bid winner's called partner (-1: none)
	MeldPoints         []int        // each seat's meld points this hand
	TrickPoints        []int        // each seat's trick points this hand
	State              *State       // the last state line, if any
}

func removeCard(cards []Card, card Card) ([]Card, bool) {
	for i, c := range cards {
		if c == card {
			return append(cards[:i], cards[i+1:]...), true
		}
	}
	return cards, false
}

// Update updates the model with one message from the referee.
func (g *Model) Update(message Message) {
	var ok bool
	switch m := message.(type) {
	case *Game:
		// A new game: forget everything about the old one.
		*g = Model{
			ID: m.ID, Variant: m.Variant, Seat: m.Seat, Players: m.Players,
			Options: map[string]string{}, Totals: make([]int, m.Players),
			MeldPoints: make([]int, m.Players), TrickPoints: make([]int, m.Players),
			Bidder: -1, Partner: -1,
			Rules: Rules{Points: map[Rank]int{}, Melds: map[string][]int{}, Follow: map[int][]string{}},
		}
		for _, o := range m.Options {
			g.Options[o.Key] = o.Value
		}
		if t, err := strconv.Atoi(g.Options["target"]); err == nil {
			g.Target = t
		}
	case *RuleRanks:
		g.Rules.Ranks = m.Ranks
	case *RuleCopies:
		g.Rules.Copies = m.Copies
	case *RulePoints:
		g.Rules.Points = m.Points
	case *RuleLastTrick:
		g.Rules.LastTrick = m.Points
	case *RuleTarget:
		g.Rules.Target, g.Target = m.Target, m.Target
	case *RuleMeld:
		if g.Rules.Melds != nil {
			g.Rules.Melds[m.Kind] = m.Values
		}
	case *RuleFollow:
		if g.Rules.Follow != nil {
			g.Rules.Follow[m.Phase] = m.Duties
		}
	case *RuleFirstLead:
		g.Rules.FirstLeadTrump = m.What == "trump"
	case *Target:
		g.Target = m.Target
	case *Deal:
		g.HandNumber, g.Dealer = m.Hand, m.Dealer
		g.StockGame, g.Turnup = m.Turnup.Known, m.Turnup
		g.Trump = 0
		if m.Turnup.Known {
			g.Trump = m.Turnup.Card.Suit
		}
		g.Phase = 1
		g.Hand = append([]Card(nil), m.Cards...)
		g.Table, g.Trick = nil, nil
		g.Bidder, g.Bid, g.Partner = -1, 0, -1
		g.MeldPoints, g.TrickPoints = make([]int, g.Players), make([]int, g.Players)
	case *Play:
		if m.Seat == g.Seat {
			if m.Action.Kind == ActPlay {
				g.Hand, _ = removeCard(g.Hand, m.Action.Card)
			} else if m.Action.Kind == ActTable {
				g.Table, _ = removeCard(g.Table, m.Action.Card)
			}
		}
		if m.Action.IsPlay() {
			g.Trick = append(g.Trick, PlayedCard{m.Seat, m.Action.Card})
		}
		if !g.StockGame {
			g.Phase = 2 // bidding games: the play has begun
		}
	case *Trick:
		g.Trick = nil
		if m.Winner < len(g.TrickPoints) {
			g.TrickPoints[m.Winner] += m.Points
		}
	case *Draw:
		// (When the turn-up is drawn, the next state line clears Turnup.)
		if m.Seat == g.Seat && m.Card.Known {
			g.Hand = append(g.Hand, m.Card.Card)
		}
	case *Meld:
		if m.Seat < len(g.MeldPoints) {
			g.MeldPoints[m.Seat] += m.Points
		}
		if m.Seat == g.Seat && g.StockGame {
			// In the stock games a meld moves its cards from the hand to the table.
			for _, c := range m.Cards {
				if g.Hand, ok = removeCard(g.Hand, c); ok {
					g.Table = append(g.Table, c)
				}
			}
		}
	case *Exchange:
		g.Turnup = MaybeCard{m.Dix, true}
		if m.Seat == g.Seat {
			if g.Table, ok = removeCard(g.Table, m.Dix); !ok {
				g.Hand, _ = removeCard(g.Hand, m.Dix)
			}
			g.Hand = append(g.Hand, m.Taken)
		}
	case *Phase2:
		g.Phase = 2
		g.Turnup = MaybeCard{}
		g.Hand = append(g.Hand, g.Table...) // melds go back to the hand
		g.Table = nil
	case *HandEnd:
		g.Totals = m.Totals
	case *BidWon:
		g.Bidder, g.Bid = m.Seat, m.Amount
	case *Kitty:
		if g.Bidder == g.Seat {
			g.Hand = append(g.Hand, m.Cards...)
		}
	case *Trump:
		g.Trump = m.Suit
	case *Partner:
		g.Partner = m.Partner
	case *Give:
		for _, c := range m.Cards {
			if !c.Known {
				continue
			}
			if m.From == g.Seat {
				g.Hand, _ = removeCard(g.Hand, c.Card)
			} else if m.To == g.Seat {
				g.Hand = append(g.Hand, c.Card)
			}
		}
	case *Bury:
		if m.Seat == g.Seat {
			for _, c := range m.Cards {
				if c.Known {
					g.Hand, _ = removeCard(g.Hand, c.Card)
				}
			}
		}
	case *State:
		g.updateFromState(m)
	}
}

// updateFromState takes the referee's word for everything a state line restates.
func (g *Model) updateFromState(s *State) {
	if cards, ok := s.Cards(); ok {
		g.Hand = cards
	}
	if tables, ok := s.Tables(); ok && g.Seat < len(tables) {
		g.Table = append([]Card(nil), tables[g.Seat]...)
	}
	if suit, known, ok := s.Trump(); ok {
		g.Trump = 0
		if known {
			g.Trump = suit
		}
	}
	if turnup, ok := s.Turnup(); ok {
		g.Turnup = turnup
	}
	if phase, ok := s.Phase(); ok {
		g.Phase = phase
	}
	leader, ok1 := s.Leader()
	cards, ok2 := s.Trick()
	if ok1 && ok2 && g.Players > 0 {
		g.Trick = nil
		if leader >= 0 {
			for i, c := range cards {
				g.Trick = append(g.Trick, PlayedCard{(leader + i) % g.Players, c})
			}
		}
	}
	if seat, amount, ok := s.Bid(); ok {
		g.Bidder, g.Bid = seat, amount
	}
	if partner, ok := s.Partner(); ok {
		g.Partner = partner
	}
	if meld, ok := s.Meld(); ok {
		g.MeldPoints = meld
	}
	if tricks, ok := s.Tricks(); ok {
		g.TrickPoints = tricks
	}
	if totals, ok := s.Totals(); ok {
		g.Totals = totals
	}
	if target, ok := s.Target(); ok {
		g.Target = target
	}
	g.State = s
}

// IsTrump tells whether card is a trump.
func (g *Model) IsTrump(card Card) bool { return g.Trump != 0 && card.Suit == g.Trump }

// Beats tells whether card beats best (played before it). Of two identical
// cards the first played wins, so a tie does not beat.
func (g *Model) Beats(card, best Card) bool {
	if card.Suit == best.Suit {
		return card.Rank > best.Rank
	}
	return g.IsTrump(card)
}

// WinningCard is the best card of the trick so far (ok false: no card yet).
func (g *Model) WinningCard() (best Card, ok bool) {
	for i, p := range g.Trick {
		if i == 0 || g.Beats(p.Card, best) {
			best = p.Card
		}
	}
	return best, len(g.Trick) > 0
}

// WouldWin tells whether card, played now, would take the lead of the trick.
func (g *Model) WouldWin(card Card) bool {
	best, ok := g.WinningCard()
	return !ok || g.Beats(card, best)
}

// MyScoreNow is your total before this hand plus this hand's meld and trick
// points (what a claim is judged on).
func (g *Model) MyScoreNow() int {
	at := func(v []int) int {
		if g.Seat < len(v) {
			return v[g.Seat]
		}
		return 0
	}
	return at(g.Totals) + at(g.MeldPoints) + at(g.TrickPoints)
}
