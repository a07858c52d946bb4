// A pinochle-arena bot: the starter kit in Go.
//
//	main.go      the conversation: read a line, answer requests, keep the model
//	protocol.go  every referee line parsed into Go types (cards, actions, state)
//	model.go     what the bot remembers of the game (hand, trump, trick, scores)
//	strategy.go  Choose: THE function to replace with your own thinking
//
// Rules of the road (protocol/PROTOCOL.md): one reply line per `go`, flushed
// at once; nothing else on stdout (debug output goes to stderr, which the
// referee saves to a log file); unknown messages are ignored.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// How the bot introduces itself. Change the name to yours.
const (
	botName   = "go-starter"
	botAuthor = "pinochle-arena starter kits"
)

var out = bufio.NewWriter(os.Stdout)

// send writes one protocol line and flushes it: a reply stuck in a buffer
// is a reply that never came.
func send(format string, args ...interface{}) {
	fmt.Fprintf(out, format+"\n", args...)
	if err := out.Flush(); err != nil {
		os.Exit(0) // the referee is gone
	}
}

// logf writes debugging output to stderr, never to stdout.
func logf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// handshake answers `pinochle <version>`.
func handshake(version int) {
	send("id name %s", botName)
	send("id author %s", botAuthor)
	if version >= 3 {
		send("protocol 3")
		// To let the organiser tune your bot, declare options here, e.g.
		//   send("option depth int 4 1 12")
		// and read their values from the *SetOption messages.
		send("want state")
	}
	send("ready")
}

// reply is Choose's action, checked against the offers.
func reply(g *Model, request *Request) string {
	action := Choose(g, request)
	for _, o := range request.Offers {
		if o.Action.Same(action) {
			return action.String()
		}
	}
	logf("Choose returned %s, which is not offered: playing the first offer instead", action)
	if len(request.Offers) > 0 {
		return request.Offers[0].Action.String()
	}
	return "pass"
}

// emergencyReply answers a `go` line that could not be parsed at all: the
// first token that is not a range, or the lowest bid of a range.
func emergencyReply(line string) string {
	fields := strings.Fields(line)
	if len(fields) < 5 {
		return "pass"
	}
	token := fields[4]
	if low, _, isRange := strings.Cut(token, ".."); isRange {
		return low
	}
	token, _, _ = strings.Cut(token, "=")
	return token
}

func main() {
	// bufio.Reader has no line limit (a bufio.Scanner's default 64 KiB is one
	// byte short of the protocol's longest line with its newline).
	in := bufio.NewReaderSize(os.Stdin, 1<<17)
	game := &Model{}
	for {
		raw, err := in.ReadString('\n')
		if raw == "" && err != nil {
			if err != io.EOF {
				logf("reading: %v", err)
			}
			return // the referee closed our input: the match is over
		}
		line := strings.TrimRight(raw, "\r\n")

		message, err := ParseMessage(line)
		if err != nil {
			logf("could not parse %q: %v", line, err)
			if strings.HasPrefix(line, "go ") {
				send("%s", emergencyReply(line))
			}
			continue
		}
		switch m := message.(type) {
		case *Pinochle:
			handshake(m.Version)
		case *Ping:
			send("pong %s", m.Token)
		case *Request:
			send("%s", reply(game, m))
		case *Error:
			logf("referee refused our action: %s", m.Text)
		case *Quit:
			return
		case *Unknown:
			// a message of a later version: ignore it
		default:
			game.Update(message)
		}
	}
}
