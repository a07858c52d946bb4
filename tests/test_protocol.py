"""The wire codec: every message round-trips; any line gives a message or a ProtocolError."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import ProtocolError, parse_bot_line, parse_referee_line
from protocol import messages as m

card_st = st.builds(lambda r, s: r + s, st.sampled_from("ATKQJ9"), st.sampled_from("CDHS"))
token_st = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=12)
word_st = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E, blacklist_characters="="), min_size=1, max_size=8)
key_st = st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True)
seat_st = st.integers(0, 4)
num_st = st.integers(-2000, 2000)
free_text = st.text(min_size=1, max_size=30).map(lambda t: " ".join(t.split())).filter(bool)

referee_messages = st.one_of(
    st.builds(m.Hello, st.integers(0, 9)),
    st.builds(m.NewGame, token_st, token_st, seat_st, st.integers(1, 5),
              st.lists(st.tuples(key_st, word_st), max_size=4).map(tuple)),
    st.builds(m.Deal, st.integers(0, 99), seat_st, st.one_of(card_st, st.just("-")),
              st.lists(card_st, min_size=1, max_size=20).map(tuple)),
    st.builds(m.BidEvent, seat_st, st.one_of(st.none(), st.integers(0, 1000))),
    st.builds(m.BidWon, seat_st, st.integers(0, 1000)),
    st.builds(m.RedealEvent, seat_st),
    st.builds(m.Kitty, st.lists(card_st, min_size=1, max_size=3).map(tuple)),
    st.builds(m.KittyCard, card_st),
    st.builds(m.ThrowIn, seat_st),
    st.builds(m.Trump, seat_st, st.sampled_from("CDHS")),
    st.builds(m.Call, seat_st, card_st),
    st.builds(m.PartnerEvent, seat_st, st.one_of(st.none(), seat_st)),
    st.builds(m.Give, seat_st, seat_st, st.lists(st.one_of(card_st, st.just("??")), min_size=1, max_size=4).map(tuple)),
    st.builds(m.Bury, seat_st, st.lists(st.one_of(card_st, st.just("??")), min_size=1, max_size=3).map(tuple)),
    st.builds(m.Dummy, seat_st, card_st),
    st.builds(m.Contract, seat_st, st.integers(0, 1000), st.booleans(), num_st),
    st.builds(m.Bonus, seat_st, num_st, token_st),
    st.builds(m.Play, seat_st, token_st),
    st.builds(m.Trick, seat_st, num_st),
    st.builds(m.Draw, seat_st, st.one_of(card_st, st.just("??"))),
    st.builds(m.MeldShown, seat_st, token_st, num_st, st.lists(card_st, min_size=1, max_size=8).map(tuple)),
    st.builds(m.Exchange, seat_st, card_st, card_st),
    st.builds(m.PhaseTwo, seat_st),
    st.builds(m.ClaimMade, seat_st, st.booleans()),
    st.integers(1, 5).flatmap(lambda n: st.builds(m.HandEnd, st.integers(0, 99), st.lists(num_st, min_size=n, max_size=n).map(tuple),
                                                  st.lists(num_st, min_size=n, max_size=n).map(tuple))),
    st.integers(1, 5).flatmap(lambda n: st.builds(
        m.GameOver, st.sampled_from(["completed", "timeout", "crash"]), st.one_of(st.none(), seat_st),
        st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n).map(tuple),
        st.lists(num_st, min_size=n, max_size=n).map(tuple))),
    st.builds(m.Request, st.sampled_from(["lead", "follow", "meld", "take", "bid", "trump", "call", "give", "bury"]),
              st.integers(0, 10**6), st.integers(0, 10**7),
              st.lists(token_st, max_size=10).map(tuple)),
    st.builds(m.ErrorNotice, free_text),
    st.builds(m.Ping, token_st),
    st.just(m.MatchEnd()),
    st.just(m.Quit()),
    st.builds(m.SetOption, key_st, token_st),
    st.builds(m.Rule, key_st, st.lists(token_st, min_size=1, max_size=5).map(tuple)),
    st.builds(m.State, st.lists(st.tuples(key_st, token_st), max_size=8).map(tuple)),
)


@st.composite
def declared_options(draw):
    name, kind = draw(key_st), draw(st.sampled_from(m.OPTION_TYPES))
    if kind == "int":
        low = draw(st.integers(-100, 100))
        high = draw(st.integers(low, low + 1000))
        return m.OptionDeclared(name, kind, str(draw(st.integers(low, high))), (str(low), str(high)))
    if kind == "bool":
        return m.OptionDeclared(name, kind, draw(st.sampled_from(["yes", "no"])))
    if kind == "choice":
        choices = draw(st.lists(word_st, min_size=1, max_size=4, unique=True))
        return m.OptionDeclared(name, kind, draw(st.sampled_from(choices)), tuple(choices))
    return m.OptionDeclared(name, kind, draw(token_st))

bot_messages = st.one_of(
    st.builds(m.Id, st.sampled_from(["name", "author"]), free_text),
    st.just(m.Ready()),
    st.builds(m.Info, free_text),
    st.builds(m.Pong, token_st),
    st.builds(m.Reply, token_st.filter(lambda t: t not in ("ready", "info", "id", "pong", "protocol", "option", "want"))),
    st.builds(m.ProtocolChoice, st.integers(0, 9)),
    declared_options(),
    st.builds(m.Want, key_st),
)


@settings(max_examples=600)
@given(referee_messages)
def test_referee_messages_round_trip(msg):
    assert parse_referee_line(msg.to_text()) == msg


@settings(max_examples=300)
@given(bot_messages)
def test_bot_messages_round_trip(msg):
    assert parse_bot_line(msg.to_text()) == msg


@settings(max_examples=1500)
@given(st.text(max_size=200))
def test_any_text_gives_a_message_or_a_protocol_error(line):
    for parse in (parse_referee_line, parse_bot_line):
        try:
            parse(line)
        except ProtocolError:
            pass


@settings(max_examples=500)
@given(st.binary(max_size=200))
def test_any_bytes_decoded_leniently_give_a_message_or_a_protocol_error(raw):
    line = raw.decode("utf-8", "replace")
    for parse in (parse_referee_line, parse_bot_line):
        try:
            parse(line)
        except ProtocolError:
            pass


@pytest.mark.parametrize(
    "line, error",
    [
        ("deal 1 0 XX AS", "not a card"),
        ("deal 1 0 AS", "takes at least 4"),
        ("play 1", "takes 2"),
        ("go lead -5 100 AS", "must not be negative"),
        ("handend 1 points 1 2 totals 3", "as many totals"),
        ("frobnicate", "unknown message"),
        ("", "empty line"),
        ("game g1 two-handed 0 2 target", "key=value"),
    ],
)
def test_referee_line_errors_say_why(line, error):
    with pytest.raises(ProtocolError, match=error):
        parse_referee_line(line)


@pytest.mark.parametrize(
    "line, error",
    [
        ("AS KS", "one action token"),
        ("id version", "id <key> <text>"),
        ("id Version 1.0", "lower-case key"),
        ("ready now", "takes 0"),
        ("pong", "takes 1"),
        ("protocol three", "whole number"),
        ("option depth int 12 1 10", "default is not one of its values"),
        ("option depth int 3", "expected 'option NAME int DEFAULT MIN MAX'"),
        ("option style choice safe", "expected 'option NAME"),
        ("option Depth int 3 1 10", "lower-case name"),
        ("option depth float 0.5", "expected 'option NAME"),
        ("want", "takes 1"),
        # Python's int() raises its own ValueError past 4,300 digits: this once crashed the referee
        ("protocol " + "9" * 5000, "whole number"),
        ("option depth int 3 1 " + "9" * 5000, "whole number"),
    ],
)
def test_bot_line_errors_say_why(line, error):
    with pytest.raises(ProtocolError, match=error):
        parse_bot_line(line)


def test_examples_from_the_spec():
    assert parse_referee_line("go meld 4900 59000 pass royal:KH,QH dix:9H") == m.Request("meld", 4900, 59000, ("pass", "royal:KH,QH", "dix:9H"))
    assert parse_referee_line("draw 1 ??") == m.Draw(1, "??")
    assert parse_referee_line("gameover timeout 1 result 1 0 totals 880 640") == m.GameOver("timeout", 1, (1.0, 0.0), (880, 640))
    assert parse_bot_line("id name My Bot 2.0") == m.Id("name", "My Bot 2.0")
    assert parse_bot_line("table:AS\r".rstrip("\r")) == m.Reply("table:AS")


def test_version_3_examples_from_the_spec():
    assert parse_bot_line("protocol 3") == m.ProtocolChoice(3)
    assert parse_bot_line("option depth int 4 1 12") == m.OptionDeclared("depth", "int", "4", ("1", "12"))
    assert parse_bot_line("option style choice safe safe bold") == m.OptionDeclared("style", "choice", "safe",
                                                                                    ("safe", "bold"))
    assert parse_bot_line("want state") == m.Want("state")
    assert parse_referee_line("setoption depth 6") == m.SetOption("depth", "6")
    assert parse_referee_line("rule meld run 25 250 450 500") == m.Rule("meld", ("run", "25", "250", "450", "500"))
    assert parse_referee_line("state hand=1 trick=AS,TS") == m.State((("hand", "1"), ("trick", "AS,TS")))
    assert m.OptionDeclared("depth", "int", "4", ("1", "12")).check("13") == "depth takes 1 to 12, not 13"
    assert m.OptionDeclared("bold", "bool", "no").check("true") == "bold takes yes or no, not 'true'"


def test_a_meld_reply_with_a_number_past_int_limits_is_not_a_meld_with_points():
    from protocol.codec import split_points

    assert split_points("royal:KH,QH=" + "9" * 5000) == ("royal:KH,QH=" + "9" * 5000, None)
