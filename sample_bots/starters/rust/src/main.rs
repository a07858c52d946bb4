//! A pinochle-arena bot: the starter kit in Rust.
//!
//! main.rs      the conversation: read a line, answer requests, keep the model
//! protocol.rs  every referee line parsed into Rust types (cards, actions, state)
//! model.rs     what the bot remembers of the game (hand, trump, trick, scores)
//! strategy.rs  `choose`: THE function to replace with your own thinking
//!
//! Rules of the road (protocol/PROTOCOL.md): one reply line per `go`,
//! flushed at once; nothing else on stdout (debug output goes to stderr,
//! which the referee saves to a log file); unknown messages are ignored.

// The kit offers more than the simple strategy uses (every state field, every
// rule): no warnings for the parts your bot does not use yet.
#[allow(dead_code)]
mod model;
#[allow(dead_code)]
mod protocol;
mod strategy;

use std::io::{self, BufRead, Write};

use model::Game;
use protocol::{Message, Request};

/// How the bot introduces itself. Change the name to yours.
const NAME: &str = "rust-starter";
const AUTHOR: &str = "pinochle-arena starter kits";

/// Writes one protocol line and flushes it: a reply stuck in a buffer is a
/// reply that never came.
fn send(out: &mut impl Write, line: &str) -> io::Result<()> {
    writeln!(out, "{line}")?;
    out.flush()
}

/// The handshake, in answer to `pinochle <version>`.
fn handshake(out: &mut impl Write, version: u32) -> io::Result<()> {
    send(out, &format!("id name {NAME}"))?;
    send(out, &format!("id author {AUTHOR}"))?;
    if version >= 3 {
        send(out, "protocol 3")?;
        // To let the organiser tune your bot, declare options here, e.g.
        //   send(out, "option depth int 4 1 12")?;
        // and read their values from the `setoption` messages.
        send(out, "want state")?;
    }
    send(out, "ready")
}

/// The reply to a request: `strategy::choose`, checked against the offers.
fn reply(game: &Game, request: &Request) -> String {
    let action = strategy::choose(game, request);
    if request.offers_action(&action) {
        return action.to_string();
    }
    eprintln!("choose returned {action}, which is not offered: playing the first offer instead");
    match request.offers.first() {
        Some(offer) => offer.action.to_string(),
        None => "pass".to_string(),
    }
}

/// When a `go` line cannot be parsed at all, still answer something: the
/// first token that is not a range, or the lowest bid of a range.
fn emergency_reply(line: &str) -> String {
    let token = line.split_whitespace().nth(4).unwrap_or("pass");
    match token.split_once("..") {
        Some((low, _)) => low.to_string(),
        None => token.split('=').next().unwrap_or(token).to_string(),
    }
}

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut game = Game::default();
    let mut raw = Vec::new();

    loop {
        raw.clear();
        // Lines may be up to 65,536 bytes; read_until has no limit of its own.
        if input.read_until(b'\n', &mut raw)? == 0 {
            return Ok(()); // the referee closed our input: the match is over
        }
        let text = String::from_utf8_lossy(&raw);
        let line = text.trim_end_matches(['\n', '\r']);

        let message = match line.parse::<Message>() {
            Ok(message) => message,
            Err(e) => {
                eprintln!("could not parse {line:?}: {e}");
                if line.starts_with("go ") {
                    send(&mut out, &emergency_reply(line))?;
                }
                continue;
            }
        };

        match &message {
            Message::Pinochle(version) => handshake(&mut out, *version)?,
            Message::Ping(token) => send(&mut out, &format!("pong {token}"))?,
            Message::Go(request) => {
                let answer = reply(&game, request);
                send(&mut out, &answer)?;
            }
            Message::Error(text) => eprintln!("referee refused our action: {text}"),
            Message::Quit => return Ok(()),
            Message::Unknown(_) => {} // a message of a later version: ignore it
            other => game.update(other),
        }
    }
}
