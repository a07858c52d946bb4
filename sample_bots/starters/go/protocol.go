// The pinochle-arena bot protocol, version 3: every line the referee sends,
// parsed into Go types (see protocol/PROTOCOL.md in the pinochle-arena repo).
//
//   - Card, Rank, Suit: cards such as AS (ace of spades), TD.
//   - Action / Offer: one token of a `go` request (AS, table:KS,
//     royal:KH,QH=40, bid:25, trump:H...). Range tokens (bid:21..555) are
//     expanded into one offer per bid, so you never reply with a range.
//   - Message: one referee line. ParseMessage gives one struct per message
//     (*Deal, *Play, *Request...); a line whose first word is unknown gives
//     *Unknown, to be ignored: later versions of the protocol add messages.
//   - State: a `state` line, kept as key -> value with typed accessors.
//     Unknown keys are kept but never get in the way.
//
// You should not need to change this file to write a bot.

package main

import (
	"fmt"
	"strconv"
	"strings"
)

// ------------------------------------------------------------------- cards

// Suit is one of C D H S.
type Suit byte

const (
	Clubs    Suit = 'C'
	Diamonds Suit = 'D'
	Hearts   Suit = 'H'
	Spades   Suit = 'S'
)

// Suits lists the four suits.
var Suits = []Suit{Clubs, Diamonds, Hearts, Spades}

func (s Suit) String() string { return string(s) }

// ParseSuit reads a suit letter, in either case.
func ParseSuit(text string) (Suit, error) {
	if len(text) == 1 {
		switch s := Suit(strings.ToUpper(text)[0]); s {
		case Clubs, Diamonds, Hearts, Spades:
			return s, nil
		}
	}
	return 0, fmt.Errorf("not a suit: %q", text)
}

// Rank is a card's rank. The constants go from low to high, so comparing
// ranks compares their strength: within a suit the order is A T K Q J 9
// (the ten beats the king).
type Rank int

const (
	Nine Rank = iota
	Jack
	Queen
	King
	Ten
	Ace
)

const rankLetters = "9JQKTA" // indexed by Rank

func (r Rank) String() string { return rankLetters[r : r+1] }

// ParseRank reads a rank letter (A T K Q J 9), in either case.
func ParseRank(text string) (Rank, error) {
	if len(text) == 1 {
		if i := strings.IndexByte(rankLetters, strings.ToUpper(text)[0]); i >= 0 {
			return Rank(i), nil
		}
	}
	return 0, fmt.Errorf("not a rank: %q", text)
}

// Card is a card: rank then suit. Identical cards are interchangeable, so a
// Card is a plain comparable value.
type Card struct {
	Rank Rank
	Suit Suit
}

func (c Card) String() string { return c.Rank.String() + c.Suit.String() }

// ParseCard reads a two-character card such as AS or td.
func ParseCard(text string) (Card, error) {
	if len(text) == 2 {
		r, err1 := ParseRank(text[:1])
		s, err2 := ParseSuit(text[1:])
		if err1 == nil && err2 == nil {
			return Card{r, s}, nil
		}
	}
	return Card{}, fmt.Errorf("not a card: %q", text)
}

// MaybeCard is a card that may be hidden (`??`): Known is false then.
type MaybeCard struct {
	Card  Card
	Known bool
}

// ParseMaybeCard reads a card or `??`.
func ParseMaybeCard(text string) (MaybeCard, error) {
	if text == "??" {
		return MaybeCard{}, nil
	}
	c, err := ParseCard(text)
	return MaybeCard{c, err == nil}, err
}

// ParseCards reads cards given as separate tokens.
func ParseCards(tokens []string) ([]Card, error) {
	cards := make([]Card, 0, len(tokens))
	for _, t := range tokens {
		c, err := ParseCard(t)
		if err != nil {
			return nil, err
		}
		cards = append(cards, c)
	}
	return cards, nil
}

// ParseCardList reads a comma-separated list as in `state` lines; `-` is none.
func ParseCardList(text string) ([]Card, error) {
	if text == "-" || text == "" {
		return []Card{}, nil
	}
	return ParseCards(strings.Split(text, ","))
}

func joinCards(cards []Card) string {
	parts := make([]string, len(cards))
	for i, c := range cards {
		parts[i] = c.String()
	}
	return strings.Join(parts, ",")
}

// ----------------------------------------------------------------- actions

// ActionKind says what an Action does.
type ActionKind int

const (
	ActPlay    ActionKind = iota // AS: play a card from the hand
	ActTable                     // table:AS or table:KS@kings: play a card of your meld on the table
	ActMeld                      // royal:KH,QH: make a meld, naming the cards it takes from the hand
	ActPass                      // pass: no (more) meld, or pass in an auction
	ActTake                      // take:stock / take:turnup
	ActClaim                     // claim: claim to have reached the target
	ActBid                       // bid:25
	ActTrump                     // trump:H
	ActThrowIn                   // throw-in: concede the hand instead of naming trump
	ActCall                      // call:AS: call a card; its first holder is your partner
	ActGive                      // give:AS: pass a card to your partner
	ActBury                      // bury:AS: bury a card
	ActOther                     // anything else, kept as sent in Text
)

// Action is one action: what a request offers, what you reply, and what
// `play <seat> <action>` reports. Which fields mean something depends on Kind.
type Action struct {
	Kind     ActionKind
	Card     Card   // ActPlay, ActTable, ActCall, ActGive, ActBury
	Copy     string // ActTable: which copy (`kings` in table:KS@kings), or ""
	MeldKind string // ActMeld: royal, double-aces...
	Cards    []Card // ActMeld: the cards taken from the hand
	Take     string // ActTake: stock or turnup
	Amount   int    // ActBid
	Suit     Suit   // ActTrump
	Text     string // ActOther
}

// IsPlay tells whether the action puts a card on the trick.
func (a Action) IsPlay() bool { return a.Kind == ActPlay || a.Kind == ActTable }

// String is the token to send back (and the form the referee lists it in).
func (a Action) String() string {
	switch a.Kind {
	case ActPlay:
		return a.Card.String()
	case ActTable:
		if a.Copy != "" {
			return "table:" + a.Card.String() + "@" + a.Copy
		}
		return "table:" + a.Card.String()
	case ActMeld:
		return a.MeldKind + ":" + joinCards(a.Cards)
	case ActPass:
		return "pass"
	case ActTake:
		return "take:" + a.Take
	case ActClaim:
		return "claim"
	case ActBid:
		return "bid:" + strconv.Itoa(a.Amount)
	case ActTrump:
		return "trump:" + a.Suit.String()
	case ActThrowIn:
		return "throw-in"
	case ActCall:
		return "call:" + a.Card.String()
	case ActGive:
		return "give:" + a.Card.String()
	case ActBury:
		return "bury:" + a.Card.String()
	}
	return a.Text
}

// Same tells whether two actions are the same action.
func (a Action) Same(b Action) bool { return a.String() == b.String() }

// ParseAction reads one action token (case does not matter).
func ParseAction(token string) (Action, error) {
	switch strings.ToLower(token) {
	case "pass":
		return Action{Kind: ActPass}, nil
	case "claim":
		return Action{Kind: ActClaim}, nil
	case "throw-in":
		return Action{Kind: ActThrowIn}, nil
	}
	head, rest, found := strings.Cut(token, ":")
	if !found {
		if c, err := ParseCard(token); err == nil {
			return Action{Kind: ActPlay, Card: c}, nil
		}
		return Action{Kind: ActOther, Text: token}, nil
	}
	head = strings.ToLower(head)
	card := func(kind ActionKind) (Action, error) {
		c, err := ParseCard(rest)
		return Action{Kind: kind, Card: c}, err
	}
	switch head {
	case "table":
		text, copy, _ := strings.Cut(rest, "@")
		c, err := ParseCard(text)
		return Action{Kind: ActTable, Card: c, Copy: copy}, err
	case "take":
		return Action{Kind: ActTake, Take: strings.ToLower(rest)}, nil
	case "bid":
		n, err := strconv.Atoi(rest)
		return Action{Kind: ActBid, Amount: n}, err
	case "trump":
		s, err := ParseSuit(rest)
		return Action{Kind: ActTrump, Suit: s}, err
	case "call":
		return card(ActCall)
	case "give":
		return card(ActGive)
	case "bury":
		return card(ActBury)
	}
	if cards, err := ParseCardList(rest); err == nil && len(cards) > 0 {
		return Action{Kind: ActMeld, MeldKind: head, Cards: cards}, nil
	}
	return Action{Kind: ActOther, Text: token}, nil
}

// Offer is one legal action of a request, with the points a meld would
// score (version 3 writes them as royal:KH,QH=40).
type Offer struct {
	Action    Action
	Points    int
	HasPoints bool
}

// AppendOffers parses one token of a request and appends the offers it
// stands for: one, or many for a range bid:A..B (every bid from A to B) or
// bid:A..B/S (every S-th one).
func AppendOffers(offers []Offer, token string) ([]Offer, error) {
	if strings.HasPrefix(token, "bid:") && strings.Contains(token, "..") {
		span, stepText, hasStep := strings.Cut(token[len("bid:"):], "/")
		lowText, highText, _ := strings.Cut(span, "..")
		step, stepErr := 1, error(nil)
		if hasStep {
			step, stepErr = strconv.Atoi(stepText)
		}
		low, lowErr := strconv.Atoi(lowText)
		high, highErr := strconv.Atoi(highText)
		if stepErr != nil || lowErr != nil || highErr != nil || step <= 0 || low > high {
			return offers, fmt.Errorf("bad bid range: %q", token)
		}
		for n := low; n <= high; n += step {
			offers = append(offers, Offer{Action: Action{Kind: ActBid, Amount: n}})
		}
		return offers, nil
	}
	offer := Offer{}
	text := token
	if i := strings.LastIndexByte(token, '='); i >= 0 && strings.Contains(token, ":") {
		points, err := strconv.Atoi(token[i+1:])
		if err != nil {
			return offers, fmt.Errorf("bad meld points in %q", token)
		}
		text, offer.Points, offer.HasPoints = token[:i], points, true
	}
	action, err := ParseAction(text)
	if err != nil {
		return offers, err
	}
	offer.Action = action
	return append(offers, offer), nil
}

// ------------------------------------------------------------------- state

// Field is one key=value of a state line.
type Field struct{ Key, Value string }

// State is a `state` line: what the seat may know just before a request.
// Fields are kept in order as key -> value; the accessors give the
// documented ones typed, with ok false when a field is absent (some exist
// only in some variants, and a newer referee adds more at the end: unknown
// keys are simply never asked for) or malformed.
type State struct {
	Fields []Field
	values map[string]string
}

func parseState(args []string) *State {
	s := &State{values: map[string]string{}}
	for _, token := range args {
		if key, value, ok := strings.Cut(token, "="); ok {
			s.Fields = append(s.Fields, Field{key, value})
			s.values[key] = value
		}
	}
	return s
}

// Get returns a field's raw value.
func (s *State) Get(key string) (string, bool) {
	v, ok := s.values[key]
	return v, ok
}

func (s *State) int(key string) (int, bool) {
	v, ok := s.values[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

func (s *State) perSeat(key string) ([]int, bool) {
	v, ok := s.values[key]
	if !ok {
		return nil, false
	}
	parts := strings.Split(v, "/")
	out := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

func (s *State) cardLists(key string) ([][]Card, bool) {
	v, ok := s.values[key]
	if !ok {
		return nil, false
	}
	var out [][]Card
	for _, part := range strings.Split(v, "/") {
		cards, err := ParseCardList(part)
		if err != nil {
			return nil, false
		}
		out = append(out, cards)
	}
	return out, true
}

// optionalSeat reads a seat or `-` (seat -1).
func (s *State) optionalSeat(key string) (int, bool) {
	v, ok := s.values[key]
	if !ok {
		return 0, false
	}
	if v == "-" {
		return -1, true
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// Hand is `hand=<n>`, the hand number.
func (s *State) Hand() (int, bool) { return s.int("hand") }

// Dealer is `dealer=<seat>`.
func (s *State) Dealer() (int, bool) { return s.int("dealer") }

// Phase is `phase=<1|2>`.
func (s *State) Phase() (int, bool) { return s.int("phase") }

// Trump is `trump=<suit|->`; known is false while trump is not named.
func (s *State) Trump() (suit Suit, known bool, ok bool) {
	v, ok := s.values["trump"]
	if !ok || v == "-" {
		return 0, false, ok
	}
	suit, err := ParseSuit(v)
	return suit, err == nil, err == nil
}

// Turnup is `turnup=<card|->`.
func (s *State) Turnup() (card MaybeCard, ok bool) {
	v, ok := s.values["turnup"]
	if !ok || v == "-" {
		return MaybeCard{}, ok
	}
	c, err := ParseCard(v)
	return MaybeCard{c, err == nil}, err == nil
}

// Cards is `cards=`: your concealed hand.
func (s *State) Cards() ([]Card, bool) {
	v, ok := s.values["cards"]
	if !ok {
		return nil, false
	}
	cards, err := ParseCardList(v)
	return cards, err == nil
}

// Tables is `tables=`: each seat's melded cards on the table.
func (s *State) Tables() ([][]Card, bool) { return s.cardLists("tables") }

// Leader is `leader=<seat|->`: who led the trick in play (-1: none).
func (s *State) Leader() (int, bool) { return s.optionalSeat("leader") }

// Trick is `trick=`: the cards played to the trick so far, in order.
func (s *State) Trick() ([]Card, bool) {
	v, ok := s.values["trick"]
	if !ok {
		return nil, false
	}
	cards, err := ParseCardList(v)
	return cards, err == nil
}

// Held is `held=`: how many concealed cards each seat holds.
func (s *State) Held() ([]int, bool) { return s.perSeat("held") }

// Stock is `stock=<n>`: face-down cards in the stock, while there is one.
func (s *State) Stock() (int, bool) { return s.int("stock") }

// Kitty is `kitty=<n>`.
func (s *State) Kitty() (int, bool) { return s.int("kitty") }

// Buried is `buried=<n>`.
func (s *State) Buried() (int, bool) { return s.int("buried") }

// Dummy is `dummy=<n>`.
func (s *State) Dummy() (int, bool) { return s.int("dummy") }

// Bid is `bid=<seat>:<amount>|-`: the auction's winner (-1: none yet) and its bid.
func (s *State) Bid() (seat, amount int, ok bool) {
	v, ok := s.values["bid"]
	if !ok {
		return 0, 0, false
	}
	if v == "-" {
		return -1, 0, true
	}
	seatText, amountText, found := strings.Cut(v, ":")
	seat, err1 := strconv.Atoi(seatText)
	amount, err2 := strconv.Atoi(amountText)
	return seat, amount, found && err1 == nil && err2 == nil
}

// Partner is `partner=<seat|->`: the bid winner's called partner (-1: none).
func (s *State) Partner() (int, bool) { return s.optionalSeat("partner") }

// Meld is `meld=`: each seat's meld points this hand.
func (s *State) Meld() ([]int, bool) { return s.perSeat("meld") }

// Tricks is `tricks=`: each seat's trick points this hand.
func (s *State) Tricks() ([]int, bool) { return s.perSeat("tricks") }

// Totals is `totals=`: the game totals before this hand.
func (s *State) Totals() ([]int, bool) { return s.perSeat("totals") }

// CardCount is one entry of `unseen=`.
type CardCount struct {
	Card  Card
	Count int
}

// Unseen is `unseen=`: every card you have not seen, with its copies.
func (s *State) Unseen() ([]CardCount, bool) {
	v, ok := s.values["unseen"]
	if !ok {
		return nil, false
	}
	out := []CardCount{}
	if v == "-" {
		return out, true
	}
	for _, pair := range strings.Split(v, ",") {
		cardText, countText, _ := strings.Cut(pair, ":")
		c, err1 := ParseCard(cardText)
		n, err2 := strconv.Atoi(countText)
		if err1 != nil || err2 != nil {
			return nil, false
		}
		out = append(out, CardCount{c, n})
	}
	return out, true
}

// Target is `target=<n>`: the target score now (it may rise under tiebreak=play-on).
func (s *State) Target() (int, bool) { return s.int("target") }

// SeatBid is one entry of `bids=`: a seat's bid, or a pass.
type SeatBid struct {
	Seat   int
	Amount int
	Pass   bool
}

// Bids is `bids=<seat>:<amount|pass>,...`: this hand's auction so far, in order.
func (s *State) Bids() ([]SeatBid, bool) {
	v, ok := s.values["bids"]
	if !ok {
		return nil, false
	}
	out := []SeatBid{}
	if v == "-" {
		return out, true
	}
	for _, pair := range strings.Split(v, ",") {
		seatText, amountText, _ := strings.Cut(pair, ":")
		seat, err := strconv.Atoi(seatText)
		if err != nil {
			return nil, false
		}
		b := SeatBid{Seat: seat, Pass: amountText == "pass"}
		if !b.Pass {
			if b.Amount, err = strconv.Atoi(amountText); err != nil {
				return nil, false
			}
		}
		out = append(out, b)
	}
	return out, true
}

// Won is `won=<n>/<n>/...`: tricks won by each seat this hand.
func (s *State) Won() ([]int, bool) { return s.perSeat("won") }

// Known is `known=<cards>/<cards>/...`: per seat, the concealed cards you
// know it holds (your own seat is `-`: your hand is Cards).
func (s *State) Known() ([][]Card, bool) { return s.cardLists("known") }

// ------------------------------------------------------------------- rules

// The rule lines (version 3), one type each: see ParseMessage.
type (
	RuleRanks     struct{ Ranks []Rank }        // rule ranks A T K Q J 9 (high to low)
	RuleCopies    struct{ Copies int }          // rule copies 2
	RulePoints    struct{ Points map[Rank]int } // rule points A=11 T=10 ...
	RuleLastTrick struct{ Points int }          // rule last-trick 10
	RuleTarget    struct{ Target int }          // rule target 1000
	RuleFollow    struct {                      // rule follow 2 suit trump head
		Phase  int
		Duties []string
	}
	RuleFirstLead struct{ What string } // rule first-lead trump
	// RuleMeld is `rule meld royal 40 80`: the value once, twice (and three
	// and four times in the double deck); NoMeld where that many is no meld.
	RuleMeld struct {
		Kind   string
		Values []int
	}
	// RuleOther is a rule this kit does not know (ignore it).
	RuleOther struct {
		Key    string
		Values []string
	}
)

// NoMeld marks a `-` in a `rule meld` line.
const NoMeld = -1

func parseRule(args []string) (Message, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("rule: too few words")
	}
	key, values := args[0], args[1:]
	number := func() (int, error) { return strconv.Atoi(values[0]) }
	switch key {
	case "ranks":
		r := &RuleRanks{}
		for _, v := range values {
			rank, err := ParseRank(v)
			if err != nil {
				return nil, err
			}
			r.Ranks = append(r.Ranks, rank)
		}
		return r, nil
	case "copies":
		n, err := number()
		return &RuleCopies{n}, err
	case "points":
		r := &RulePoints{map[Rank]int{}}
		for _, pair := range values {
			rankText, pointsText, _ := strings.Cut(pair, "=")
			rank, err := ParseRank(rankText)
			if err != nil {
				return nil, err
			}
			if r.Points[rank], err = strconv.Atoi(pointsText); err != nil {
				return nil, err
			}
		}
		return r, nil
	case "last-trick":
		n, err := number()
		return &RuleLastTrick{n}, err
	case "target":
		n, err := number()
		return &RuleTarget{n}, err
	case "meld":
		r := &RuleMeld{Kind: values[0]}
		for _, v := range values[1:] {
			n := NoMeld
			if v != "-" {
				var err error
				if n, err = strconv.Atoi(v); err != nil {
					return nil, err
				}
			}
			r.Values = append(r.Values, n)
		}
		return r, nil
	case "follow":
		n, err := number()
		return &RuleFollow{Phase: n, Duties: values[1:]}, err
	case "first-lead":
		return &RuleFirstLead{values[0]}, nil
	}
	return &RuleOther{key, values}, nil
}

// ---------------------------------------------------------------- messages

// Message is any line from the referee: one of the types below.
type Message interface{}

type (
	// Pinochle is the greeting `pinochle 3`: answer with the handshake.
	Pinochle struct{ Version int }
	// SetOption is `setoption <name> <value>`.
	SetOption struct{ Name, Value string }
	// Game is `game <id> <variant> <seat> <players> <key=value>...`: a new
	// game begins; forget the old one.
	Game struct {
		ID, Variant   string
		Seat, Players int
		Options       []Field // every rule option of the variant, in order
	}
	// Deal is `deal <hand> <dealer> <turnup|-> <card>...`.
	Deal struct {
		Hand, Dealer int
		Turnup       MaybeCard // not Known in the bidding games (`-`)
		Cards        []Card
	}
	// Bonus is `bonus <seat> <points> <reason>`.
	Bonus struct {
		Seat, Points int
		Reason       string
	}
	// Play is `play <seat> <action>`.
	Play struct {
		Seat   int
		Action Action
	}
	// Trick is `trick <winner> <points>`.
	Trick struct{ Winner, Points int }
	// Draw is `draw <seat> <card|??>`.
	Draw struct {
		Seat int
		Card MaybeCard
	}
	// Meld is `meld <seat> <kind> <points> <card>...`.
	Meld struct {
		Seat   int
		Kind   string
		Points int
		Cards  []Card
	}
	// Exchange is `exchange <seat> <dix> <taken>`.
	Exchange struct {
		Seat       int
		Dix, Taken Card
	}
	// Phase2 is `phase2 <leader>`.
	Phase2 struct{ Leader int }
	// Claim is `claim <seat> yes|no`.
	Claim struct {
		Seat    int
		Success bool
	}
	// HandEnd is `handend <hand> points <p>... totals <t>...`.
	HandEnd struct {
		Hand           int
		Points, Totals []int
	}
	// Request is `go <decision> <time-left-ms> <bank-ms> <action>...`:
	// reply with exactly one of Offers (write its Action.String()).
	Request struct {
		Decision           string // lead, follow, meld, take, bid, trump, call, give, bury
		TimeLeftMs, BankMs int
		Offers             []Offer // every legal action, ranges expanded
	}
	// Error is `error <text>`: why your last action was refused.
	Error struct{ Text string }
	// GameOver is `gameover <termination> <seat|-> result <r>... totals <t>...`.
	GameOver struct {
		Termination string
		Culprit     int // -1: none
		Results     []float64
		Totals      []int
	}
	// Bid is `bid <seat> <amount|pass>`.
	Bid struct {
		Seat, Amount int
		Pass         bool
	}
	// BidWon is `bidwon <seat> <amount>`.
	BidWon struct{ Seat, Amount int }
	// Redeal is `redeal <dealer>`.
	Redeal struct{ Dealer int }
	// Kitty is `kitty <card>...`.
	Kitty struct{ Cards []Card }
	// KittyCard is `kittycard <card>`.
	KittyCard struct{ Card Card }
	// ThrowIn is `throwin <seat>`.
	ThrowIn struct{ Seat int }
	// Trump is `trump <seat> <suit>`.
	Trump struct {
		Seat int
		Suit Suit
	}
	// Call is `call <seat> <card>`.
	Call struct {
		Seat int
		Card Card
	}
	// Partner is `partner <bidder> <seat|->` (Partner -1: plays alone).
	Partner struct{ Bidder, Partner int }
	// Give is `give <from> <to> <card|??>...`.
	Give struct {
		From, To int
		Cards    []MaybeCard
	}
	// Bury is `bury <seat> <card|??>...`.
	Bury struct {
		Seat  int
		Cards []MaybeCard
	}
	// Dummy is `dummy <seat> <card>`.
	Dummy struct {
		Seat int
		Card Card
	}
	// Contract is `contract <bidder> <bid> made|set <points>`.
	Contract struct {
		Bidder, Bid int
		Made        bool
		Points      int
	}
	// Target is `target <n>`: the target score rose to n (tiebreak=play-on).
	Target struct{ Target int }
	// Ping is `ping <token>`: answer `pong <token>` at once.
	Ping struct{ Token string }
	// MatchEnd is `matchend`.
	MatchEnd struct{}
	// Quit is `quit`: exit now.
	Quit struct{}
	// Unknown is a message this kit does not know: ignore it.
	Unknown struct{ Line string }
)

// words is a cursor over a line's arguments that remembers the first error.
type words struct {
	name string
	args []string
	err  error
}

func (w *words) fail(err error) {
	if w.err == nil && err != nil {
		w.err = fmt.Errorf("%s: %v", w.name, err)
	}
}

func (w *words) str(i int) string {
	if i >= len(w.args) {
		w.fail(fmt.Errorf("too few words"))
		return ""
	}
	return w.args[i]
}

func (w *words) int(i int) int {
	n, err := strconv.Atoi(w.str(i))
	if w.err == nil {
		w.fail(err)
	}
	return n
}

// seat reads a seat or `-` (-1).
func (w *words) seat(i int) int {
	if w.str(i) == "-" {
		return -1
	}
	return w.int(i)
}

func (w *words) card(i int) Card {
	c, err := ParseCard(w.str(i))
	if w.err == nil {
		w.fail(err)
	}
	return c
}

func (w *words) from(i int) []string {
	if i > len(w.args) {
		w.fail(fmt.Errorf("too few words"))
		return nil
	}
	return w.args[i:]
}

func (w *words) cards(i int) []Card {
	cards, err := ParseCards(w.from(i))
	w.fail(err)
	return cards
}

func (w *words) maybeCards(i int) []MaybeCard {
	var out []MaybeCard
	for _, t := range w.from(i) {
		c, err := ParseMaybeCard(t)
		w.fail(err)
		out = append(out, c)
	}
	return out
}

// between reads the numbers after keyword, up to stop (or the end).
func between[T int | float64](w *words, keyword, stop string) []T {
	var out []T
	in := false
	for _, a := range w.args {
		switch {
		case a == keyword:
			in = true
		case a == stop:
			in = false
		case in:
			f, err := strconv.ParseFloat(a, 64)
			w.fail(err)
			out = append(out, T(f))
		}
	}
	return out
}

// restOfLine is the text after the message name.
func restOfLine(line string) string {
	_, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	return strings.TrimSpace(rest)
}

// ParseMessage parses one line from the referee (without its line end).
func ParseMessage(line string) (Message, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return &Unknown{line}, nil
	}
	w := &words{name: fields[0], args: fields[1:]}
	var m Message
	switch w.name {
	case "pinochle":
		m = &Pinochle{w.int(0)}
	case "setoption":
		m = &SetOption{w.str(0), strings.Join(w.from(1), " ")}
	case "rule":
		return parseRule(w.args)
	case "state":
		return parseState(w.args), nil
	case "game":
		g := &Game{ID: w.str(0), Variant: w.str(1), Seat: w.int(2), Players: w.int(3)}
		for _, kv := range w.from(4) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				g.Options = append(g.Options, Field{k, v})
			}
		}
		m = g
	case "deal":
		d := &Deal{Hand: w.int(0), Dealer: w.int(1), Cards: w.cards(3)}
		if t := w.str(2); t != "-" {
			d.Turnup = MaybeCard{w.card(2), true}
		}
		m = d
	case "bonus":
		m = &Bonus{w.int(0), w.int(1), strings.Join(w.from(2), " ")}
	case "play":
		a, err := ParseAction(w.str(1))
		w.fail(err)
		m = &Play{w.int(0), a}
	case "trick":
		m = &Trick{w.int(0), w.int(1)}
	case "draw":
		c, err := ParseMaybeCard(w.str(1))
		w.fail(err)
		m = &Draw{w.int(0), c}
	case "meld":
		m = &Meld{w.int(0), w.str(1), w.int(2), w.cards(3)}
	case "exchange":
		m = &Exchange{w.int(0), w.card(1), w.card(2)}
	case "phase2":
		m = &Phase2{w.int(0)}
	case "claim":
		m = &Claim{w.int(0), w.str(1) == "yes"}
	case "handend":
		m = &HandEnd{w.int(0), between[int](w, "points", "totals"), between[int](w, "totals", "")}
	case "go":
		r := &Request{Decision: w.str(0), TimeLeftMs: w.int(1), BankMs: w.int(2)}
		for _, token := range w.from(3) {
			var err error
			if r.Offers, err = AppendOffers(r.Offers, token); err != nil {
				// Keep it, unusable: one odd token must not cost the reply.
				logf("unparsed action %q: %v", token, err)
				r.Offers = append(r.Offers, Offer{Action: Action{Kind: ActOther, Text: token}})
			}
		}
		m = r
	case "error":
		m = &Error{restOfLine(line)}
	case "gameover":
		m = &GameOver{w.str(0), w.seat(1), between[float64](w, "result", "totals"), between[int](w, "totals", "")}
	case "bid":
		b := &Bid{Seat: w.int(0), Pass: w.str(1) == "pass"}
		if !b.Pass {
			b.Amount = w.int(1)
		}
		m = b
	case "bidwon":
		m = &BidWon{w.int(0), w.int(1)}
	case "redeal":
		m = &Redeal{w.int(0)}
	case "kitty":
		m = &Kitty{w.cards(0)}
	case "kittycard":
		m = &KittyCard{w.card(0)}
	case "throwin":
		m = &ThrowIn{w.int(0)}
	case "trump":
		s, err := ParseSuit(w.str(1))
		w.fail(err)
		m = &Trump{w.int(0), s}
	case "call":
		m = &Call{w.int(0), w.card(1)}
	case "partner":
		m = &Partner{w.int(0), w.seat(1)}
	case "give":
		m = &Give{w.int(0), w.int(1), w.maybeCards(2)}
	case "bury":
		m = &Bury{w.int(0), w.maybeCards(1)}
	case "dummy":
		m = &Dummy{w.int(0), w.card(1)}
	case "contract":
		m = &Contract{w.int(0), w.int(1), w.str(2) == "made", w.int(3)}
	case "target":
		m = &Target{w.int(0)}
	case "ping":
		m = &Ping{restOfLine(line)}
	case "matchend":
		m = &MatchEnd{}
	case "quit":
		m = &Quit{}
	default:
		m = &Unknown{line}
	}
	if w.err != nil {
		return nil, w.err
	}
	return m, nil
}
