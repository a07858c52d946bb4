package main

import (
	"reflect"
	"testing"
)

func mustParse(t *testing.T, line string) Message {
	t.Helper()
	m, err := ParseMessage(line)
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	return m
}

func card(t *testing.T, text string) Card {
	t.Helper()
	c, err := ParseCard(text)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func check(t *testing.T, got, want interface{}) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

func TestCards(t *testing.T) {
	for _, text := range []string{"AS", "TD", "9C", "QH", "JD", "KS"} {
		check(t, card(t, text).String(), text)
	}
	check(t, card(t, "as"), card(t, "AS"))
	if !(Ten > King && Ace > Ten && Jack > Nine) {
		t.Error("rank order")
	}
	for _, bad := range []string{"XS", "ASS", "A", "??"} {
		if _, err := ParseCard(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestActionsRoundTrip(t *testing.T) {
	for _, token := range []string{
		"AS", "table:KS", "table:KS@marriage+pinochle", "royal:KH,QH", "double-pinochle:JD,JD,QS,QS",
		"pass", "take:stock", "take:turnup", "claim", "bid:25", "trump:H", "throw-in", "call:AS",
		"give:TS", "bury:9C",
	} {
		a, err := ParseAction(token)
		if err != nil {
			t.Fatal(err)
		}
		check(t, a.String(), token)
	}
	a, _ := ParseAction("Royal:kh,qh")
	check(t, a.String(), "royal:KH,QH")
	a, _ = ParseAction("frobnicate:x")
	check(t, a.Kind, ActOther)
}

func TestRequestMeldPoints(t *testing.T) {
	r := mustParse(t, "go meld 4900 59000 pass royal:KH,QH=40 run:AH,TH,JH=110").(*Request)
	check(t, r.Decision, "meld")
	check(t, []int{r.TimeLeftMs, r.BankMs}, []int{4900, 59000})
	check(t, len(r.Offers), 3)
	check(t, r.Offers[0].Action.Kind, ActPass)
	check(t, r.Offers[2].Points, 110)
	check(t, r.Offers[2].HasPoints, true)
	check(t, r.Offers[2].Action.String(), "run:AH,TH,JH")
}

func TestRequestBidRanges(t *testing.T) {
	r := mustParse(t, "go bid 5000 60000 pass bid:52..60 bid:65..100/5 bid:110..1000/10").(*Request)
	bids := map[int]bool{}
	for _, o := range r.Offers[1:] {
		check(t, o.Action.Kind, ActBid)
		bids[o.Action.Amount] = true
	}
	check(t, len(r.Offers), 1+9+8+90)
	for _, n := range []int{52, 60, 65, 100, 110, 1000} {
		if !bids[n] {
			t.Errorf("bid %d missing", n)
		}
	}
	for _, n := range []int{61, 105, 51} {
		if bids[n] {
			t.Errorf("bid %d offered", n)
		}
	}
	single := mustParse(t, "go bid 5000 60000 pass bid:20").(*Request)
	check(t, single.Offers[1].Action.String(), "bid:20")
	bad := mustParse(t, "go bid 1 1 pass bid:5..3").(*Request)
	check(t, bad.Offers[1].Action, Action{Kind: ActOther, Text: "bid:5..3"})
}

func TestRequestPlays(t *testing.T) {
	r := mustParse(t, "go follow 5000 60099 AC table:QD table:KS@kings TS").(*Request)
	check(t, r.Offers[1].Action, Action{Kind: ActTable, Card: card(t, "QD")})
	check(t, r.Offers[2].Action, Action{Kind: ActTable, Card: card(t, "KS"), Copy: "kings"})
	check(t, mustParse(t, "go ponder 5000 60000 x y").(*Request).Decision, "ponder")
}

func TestEvents(t *testing.T) {
	check(t, mustParse(t, "pinochle 3"), &Pinochle{3})
	check(t, mustParse(t, "setoption depth 6"), &SetOption{"depth", "6"})
	check(t, mustParse(t, "deal 1 0 QH JD TD"),
		&Deal{1, 0, MaybeCard{card(t, "QH"), true}, []Card{card(t, "JD"), card(t, "TD")}})
	check(t, mustParse(t, "deal 2 1 - AS").(*Deal).Turnup.Known, false)
	check(t, mustParse(t, "bonus 0 10 dix-turnup"), &Bonus{0, 10, "dix-turnup"})
	check(t, mustParse(t, "play 1 table:QD"), &Play{1, Action{Kind: ActTable, Card: card(t, "QD")}})
	check(t, mustParse(t, "trick 1 21"), &Trick{1, 21})
	check(t, mustParse(t, "draw 1 ??"), &Draw{1, MaybeCard{}})
	check(t, mustParse(t, "meld 2 double-aces 100 AC AC"),
		&Meld{2, "double-aces", 100, []Card{card(t, "AC"), card(t, "AC")}})
	check(t, mustParse(t, "exchange 1 9H QH"), &Exchange{1, card(t, "9H"), card(t, "QH")})
	check(t, mustParse(t, "phase2 0"), &Phase2{0})
	check(t, mustParse(t, "claim 0 no"), &Claim{0, false})
	check(t, mustParse(t, "handend 1 points 122 -25 totals 122 468"), &HandEnd{1, []int{122, -25}, []int{122, 468}})
	check(t, mustParse(t, "error not your card: AS"), &Error{"not your card: AS"})
	check(t, mustParse(t, "gameover completed - result 0.5 0.5 totals 1 2"),
		&GameOver{"completed", -1, []float64{0.5, 0.5}, []int{1, 2}})
	check(t, mustParse(t, "gameover timeout 1 result 1 0 totals 0 0").(*GameOver).Culprit, 1)
	check(t, mustParse(t, "bid 1 pass"), &Bid{Seat: 1, Pass: true})
	check(t, mustParse(t, "bid 2 20"), &Bid{Seat: 2, Amount: 20})
	check(t, mustParse(t, "bidwon 0 25"), &BidWon{0, 25})
	check(t, mustParse(t, "redeal 2"), &Redeal{2})
	check(t, mustParse(t, "kitty TS KH TD"), &Kitty{[]Card{card(t, "TS"), card(t, "KH"), card(t, "TD")}})
	check(t, mustParse(t, "kittycard TS"), &KittyCard{card(t, "TS")})
	check(t, mustParse(t, "throwin 1"), &ThrowIn{1})
	check(t, mustParse(t, "trump 0 C"), &Trump{0, Clubs})
	check(t, mustParse(t, "call 4 AS"), &Call{4, card(t, "AS")})
	check(t, mustParse(t, "partner 3 -"), &Partner{3, -1})
	check(t, mustParse(t, "give 0 2 ?? ??"), &Give{0, 2, []MaybeCard{{}, {}}})
	check(t, mustParse(t, "bury 0 JD ??"), &Bury{0, []MaybeCard{{card(t, "JD"), true}, {}}})
	check(t, mustParse(t, "dummy 1 AS"), &Dummy{1, card(t, "AS")})
	check(t, mustParse(t, "contract 0 25 made 32"), &Contract{0, 25, true, 32})
	check(t, mustParse(t, "target 1250"), &Target{1250})
	check(t, mustParse(t, "ping abc"), &Ping{"abc"})
	check(t, mustParse(t, "matchend"), &MatchEnd{})
	check(t, mustParse(t, "quit"), &Quit{})
	check(t, mustParse(t, "hello there"), &Unknown{"hello there"})
	for _, bad := range []string{"trick x 1", "deal 1", "draw 0 XX", "pinochle"} {
		if _, err := ParseMessage(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestGameAndRules(t *testing.T) {
	g := mustParse(t, "game 9144bba0d4f1 two-handed 0 2 target=200 claim=no").(*Game)
	check(t, []interface{}{g.Seat, g.Players, g.Variant}, []interface{}{0, 2, "two-handed"})
	check(t, g.Options[1], Field{"claim", "no"})
	check(t, mustParse(t, "rule ranks A T K Q J"), &RuleRanks{[]Rank{Ace, Ten, King, Queen, Jack}})
	check(t, mustParse(t, "rule copies 4"), &RuleCopies{4})
	check(t, mustParse(t, "rule points A=11 T=10 9=0"), &RulePoints{map[Rank]int{Ace: 11, Ten: 10, Nine: 0}})
	check(t, mustParse(t, "rule last-trick 10"), &RuleLastTrick{10})
	check(t, mustParse(t, "rule target 200"), &RuleTarget{200})
	check(t, mustParse(t, "rule meld roundhouse 24 240 - -"), &RuleMeld{"roundhouse", []int{24, 240, NoMeld, NoMeld}})
	check(t, mustParse(t, "rule follow 2 suit trump head"), &RuleFollow{2, []string{"suit", "trump", "head"}})
	check(t, mustParse(t, "rule first-lead trump"), &RuleFirstLead{"trump"})
	check(t, mustParse(t, "rule colour blue"), &RuleOther{"colour", []string{"blue"}})
}

func TestState(t *testing.T) {
	s := mustParse(t, "state hand=1 dealer=0 phase=2 trump=C turnup=- cards=AC,TC tables=-/-/- leader=2 trick=AD "+
		"held=13/13/12 buried=3 bid=0:25 partner=- meld=18/4/11 tricks=1/0/1 totals=0/0/0 "+
		"unseen=AC:1,TC:1 target=150 bids=1:pass,2:20,0:21 won=1/0/1 known=-/KS,KS/- shiny=yes").(*State)
	n, _ := s.Hand()
	check(t, n, 1)
	suit, known, ok := s.Trump()
	check(t, []interface{}{suit, known, ok}, []interface{}{Clubs, true, true})
	turnup, ok := s.Turnup()
	check(t, []interface{}{turnup.Known, ok}, []interface{}{false, true})
	cards, _ := s.Cards()
	check(t, cards, []Card{card(t, "AC"), card(t, "TC")})
	tables, _ := s.Tables()
	check(t, tables, [][]Card{{}, {}, {}})
	leader, _ := s.Leader()
	check(t, leader, 2)
	trick, _ := s.Trick()
	check(t, trick, []Card{card(t, "AD")})
	held, _ := s.Held()
	check(t, held, []int{13, 13, 12})
	_, hasStock := s.Stock()
	buried, _ := s.Buried()
	check(t, []interface{}{hasStock, buried}, []interface{}{false, 3})
	seat, amount, ok := s.Bid()
	check(t, []interface{}{seat, amount, ok}, []interface{}{0, 25, true})
	partner, _ := s.Partner()
	check(t, partner, -1)
	meld, _ := s.Meld()
	check(t, meld, []int{18, 4, 11})
	unseen, _ := s.Unseen()
	check(t, unseen, []CardCount{{card(t, "AC"), 1}, {card(t, "TC"), 1}})
	target, _ := s.Target()
	check(t, target, 150)
	bids, _ := s.Bids()
	check(t, bids, []SeatBid{{1, 0, true}, {2, 20, false}, {0, 21, false}})
	won, _ := s.Won()
	check(t, won, []int{1, 0, 1})
	knownCards, _ := s.Known()
	check(t, knownCards, [][]Card{{}, {card(t, "KS"), card(t, "KS")}, {}})
	v, _ := s.Get("shiny") // an unknown key is kept, never in the way
	check(t, v, "yes")

	// an older referee without the newer fields
	old := mustParse(t, "state hand=1 dealer=0 bids=-").(*State)
	_, ok1 := old.Target()
	_, ok2 := old.Won()
	_, ok3 := old.Known()
	check(t, []bool{ok1, ok2, ok3}, []bool{false, false, false})
	oldBids, ok := old.Bids()
	check(t, []interface{}{len(oldBids), ok}, []interface{}{0, true})
}

func TestModelAndStrategy(t *testing.T) {
	g := &Model{}
	for _, line := range []string{
		"game x three-handed 0 3 target=150", "rule target 150", "deal 1 0 - AS TS KS QS JH", "play 2 KS",
	} {
		g.Update(mustParse(t, line))
	}
	ask := func(line string) string {
		r := mustParse(t, line).(*Request)
		return reply(g, r)
	}
	check(t, ask("go bid 5000 60000 pass bid:21..555"), "pass")
	check(t, ask("go bid 5000 60000 bid:20"), "bid:20")
	check(t, ask("go trump 5000 60000 trump:C trump:D trump:H trump:S"), "trump:S")
	check(t, ask("go meld 5000 60000 pass royal:KH,QH=40 aces:AC,AD,AH,AS=100"), "aces:AC,AD,AH,AS")
	check(t, ask("go follow 5000 60000 AS TS QS"), "TS") // the lowest that beats KS
	check(t, ask("go bury 5000 60000 bury:JH bury:AS"), "bury:JH")

	// a stock game: an identical card played second does not win
	g.Update(mustParse(t, "game y two-handed-hoyle 0 2 target=1000"))
	g.Update(mustParse(t, "deal 1 0 QH AS 9C 9S"))
	g.Update(mustParse(t, "play 1 9S"))
	if g.WouldWin(card(t, "9S")) || !g.WouldWin(card(t, "9H")) {
		t.Error("WouldWin")
	}
	check(t, ask("go follow 5000 60000 AS 9C 9S claim"), "AS")
	g.Totals, g.TrickPoints = []int{990, 0}, []int{11, 0}
	check(t, ask("go follow 5000 60000 AS 9C 9S claim"), "claim")
	g.Update(mustParse(t, "target 1250"))
	check(t, ask("go follow 5000 60000 AS 9C 9S claim"), "AS")
}
