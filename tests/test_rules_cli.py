"""`dice-reader banish` and `dice-reader first-player`: output shapes, prompting, one-line errors."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reader.cli import main

SEVEN = "A,B,C,D,E,F,G"
ROOT = Path(__file__).resolve().parents[1]


def run_cli(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_banish_json_matches_the_issue_example(capsys):
    rc, out, _ = run_cli(capsys, "banish", "--cards", SEVEN, "--count", "1", "--rolls", "d8:8,d8:3", "--json")
    assert rc == 0
    assert json.loads(out) == {
        "banished": [{"position": 3, "card": "C"}],
        "remaining": ["A", "B", "D", "E", "F", "G"],
        "events": [{"die": "d8", "value": 8, "result": "reroll"},
                   {"die": "d8", "value": 3, "result": "banish", "position": 3, "card": "C"}],
        "done": True,
    }


@pytest.mark.parametrize(
    ("argv", "banished", "results"),
    [
        # three cards, D8, blocks: 1-2 A, 3-4 B, 5-6 C, 7-8 rolled again
        (["--cards", "A,B,C", "--rolls", "d8:8,d8:3"], [{"position": 2, "card": "B"}],
         ["reroll", "banish"]),
        # the same rolls with the single mapping: 3 is C, 4-8 rolled again
        (["--cards", "A,B,C", "--mapping", "single", "--rolls", "d8:8,d8:3"],
         [{"position": 3, "card": "C"}], ["reroll", "banish"]),
        # the rules' first example: a D8, then a D6 once six cards are left
        (["--cards", SEVEN, "--count", "2", "--rolls", "d8:8,d8:3,d6:4"],
         [{"position": 3, "card": "C"}, {"position": 4, "card": "E"}], ["reroll", "banish", "banish"]),
        # the rules' second example: 5 cards with a D20, 13 is in 13-16
        (["--cards", "V,W,X,Y,Z", "--die", "d20", "--rolls", "13"], [{"position": 4, "card": "Y"}],
         ["banish"]),
        # a bare value uses the die the session expects; a cocked die is rolled again
        (["--cards", SEVEN, "--rolls", "cocked,d8:x,7"], [{"position": 7, "card": "G"}],
         ["roll-again", "roll-again", "banish"]),
        # banish both of two cards: the second goes without a roll
        (["--cards", "A,B", "--count", "2", "--rolls", "d6:2"],
         [{"position": 1, "card": "A"}, {"position": 1, "card": "B"}], ["banish", "banish"]),
        # a D10's "0" face is typed as 0 and counts as 10
        (["--cards", ",".join("ABCDEFGHIJ"), "--rolls", "d10:0"], [{"position": 10, "card": "J"}],
         ["banish"]),
        # more than 10 cards: the opponent's pick, then dice
        (["--cards", ",".join("ABCDEFGHIJK"), "--count", "2", "--picks", "11", "--rolls", "d10:1"],
         [{"position": 11, "card": "K"}, {"position": 1, "card": "A"}], ["banish", "banish"]),
    ],
    ids=["3 cards d8 blocks", "3 cards d8 single", "7 cards d8 then d6", "5 cards d20",
         "cocked and bare values", "last card without a roll", "d10 zero is ten", "11 cards pick then d10"],
)
def test_banish_rolls(capsys, argv, banished, results):
    rc, out, _ = run_cli(capsys, "banish", *argv, "--json")
    data = json.loads(out)
    assert rc == 0 and data["done"] is True and "next" not in data
    assert data["banished"] == banished
    assert [e["result"] for e in data["events"]] == results


def test_rolls_that_run_out_say_what_comes_next(capsys):
    rc, out, _ = run_cli(capsys, "banish", "--cards", SEVEN, "--count", "2", "--rolls", "d8:1", "--json")
    data = json.loads(out)
    assert rc == 0 and data["done"] is False
    assert data["next"]["die"] == "d6"
    assert [row["card"] for row in data["next"]["table"]["cards"]] == ["B", "C", "D", "E", "F", "G"]


def test_banish_text_output(capsys):
    rc, out, _ = run_cli(capsys, "banish", "--cards", SEVEN, "--rolls", "d8:8,d8:3")
    assert rc == 0
    assert out.splitlines() == ["D8 shows 8: no card has that value, roll again", "D8 shows 3: banish #3 C",
                                "done: banished #3 C; remaining: A, B, D, E, F, G"]


def test_banish_asks_at_the_prompt(capsys, monkeypatch):
    rc, out, err = run_cli(capsys, "banish", "--cards", SEVEN, "--count", "2", "--json",
                           stdin="d8:8\nnonsense\nd6:2\n3\n\n6\n", monkeypatch=monkeypatch)
    data = json.loads(out)
    assert rc == 0 and data["done"]
    # d6 for 7 cards and "nonsense" are refused at the prompt and asked again
    assert "not taken: a D6 has 6 faces, too few for 7 cards" in err
    assert "not taken: bad roll 'nonsense'" in err
    assert "D8: 1 A | 2 B | 3 C | 4 D | 5 E | 6 F | 7 G | 8 roll again" in err
    assert data["banished"] == [{"position": 3, "card": "C"}, {"position": 6, "card": "G"}]


def test_end_of_input_at_the_prompt_stops_with_done_false(capsys, monkeypatch):
    rc, out, _ = run_cli(capsys, "banish", "--cards", SEVEN, "--json", stdin="d8:8\n",
                         monkeypatch=monkeypatch)
    data = json.loads(out)
    assert rc == 0 and data["done"] is False and data["banished"] == []
    assert data["events"] == [{"die": "d8", "value": 8, "result": "reroll"}]
    assert data["next"]["die"] == "d8"


def test_first_player_json(capsys):
    rc, out, _ = run_cli(capsys, "first-player", "--players", "Ana,Ben", "--rolls", "3+4,5+2,6+1,2+2",
                         "--json")
    data = json.loads(out)
    assert rc == 0 and data["first"] == "Ana"
    assert set(data) == {"first", "events"}
    assert [e["result"] for e in data["events"]] == ["rolled", "rolled", "tie", "rolled", "rolled",
                                                     "first"]
    assert data["events"][0] == {"result": "rolled", "player": "Ana", "dice": [3, 4], "total": 7}


def test_first_player_default_names_and_undecided(capsys):
    rc, out, _ = run_cli(capsys, "first-player", "--rolls", "6+6", "--json")
    data = json.loads(out)
    assert rc == 0 and data["first"] is None
    assert data["events"][0]["player"] == "Player 1"


def test_first_player_text_and_prompt(capsys, monkeypatch):
    rc, out, err = run_cli(capsys, "first-player", stdin="1+1\n2+2\n", monkeypatch=monkeypatch)
    assert rc == 0
    assert out.splitlines() == ["Player 1 rolled 1 + 1 = 2", "Player 2 rolled 2 + 2 = 4",
                                "Player 2 goes first (Player 1 2, Player 2 4)"]
    assert "Player 1, roll 2 D6" in err
    rc, out, _ = run_cli(capsys, "first-player", "--json", stdin="1+1\n", monkeypatch=monkeypatch)
    assert json.loads(out)["first"] is None


BAD = [
    (["banish", "--cards", "A,B,C", "--die", "d7"], "unknown die 'd7'"),
    (["banish", "--cards", "A,B,C", "--rolls", "d7:3"], "unknown die 'd7'"),
    (["banish", "--cards", "A,B,C", "--count", "4"], "cannot banish 4 of 3 cards"),
    (["banish", "--cards", "A,B,C", "--count", "two"], "--count must be a whole number"),
    (["banish", "--cards", ""], "no cards"),
    (["banish", "--count", "1"], "no cards"),
    (["banish", "--cards", "A,B,C", "--rolls", "d6:7"], "a D6 cannot show 7"),
    (["banish", "--cards", SEVEN, "--die", "d6"], "too few for 7 cards; roll a D8, D10, D12 or D20"),
    (["banish", "--cards", SEVEN, "--rolls", "d4:2"], "a D4 is not used by the rules"),
    (["banish", "--cards", "A,B,C", "--rolls", "d8:3,d8:1"], "1 roll left over"),
    (["banish", "--cards", "A,B,C", "--rolls", "d8:three"], "bad roll 'd8:three'"),
    (["banish", "--cards", "A,B,C", "--mapping", "modulo"], "unknown mapping"),
    (["banish", "--cards", ",".join("ABCDEFGHIJK"), "--rolls", "d20:1"], "no dice"),
    (["first-player", "--rolls", "3+9"], "a D6 cannot show 9"),
    (["first-player", "--rolls", "3"], "expected two D6 values like 3+4"),
    (["first-player", "--rolls", "d8:3+d8:4"], "two D6, not a D8"),
    (["first-player", "--players", "Ana,Ana", "--rolls", "3+4"], "both players are called 'Ana'"),
    (["first-player", "--rolls", "6+6,1+1,2+2"], "1 roll left over after Player 1 was chosen"),
]


@pytest.mark.parametrize(("argv", "message"), BAD, ids=[m for _, m in BAD])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    rc, out, err = run_cli(capsys, *argv)
    assert rc == 2
    assert err.count("\n") == 1 and message in err
    assert err.startswith(f"dice-reader {argv[0]}: ")
    assert out == "" or "--json" not in argv


def _subprocess(*argv):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "reader.cli", *argv], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120, stdin=subprocess.DEVNULL)


def test_command_line_process_exit_codes_and_one_line_errors():
    ok = _subprocess("banish", "--cards", SEVEN, "--rolls", "d8:8,d8:3", "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["banished"] == [{"position": 3, "card": "C"}]
    bad = _subprocess("banish", "--cards", SEVEN, "--rolls", "d4:2")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.splitlines() == [
        "dice-reader banish: a D4 is not used by the rules; roll a D8, D10, D12 or D20 for 7 cards"]
    first = _subprocess("first-player", "--rolls", "2+2,2+2")
    assert first.returncode == 0 and "tie at 4: both players roll again" in first.stdout
    bad = _subprocess("first-player", "--rolls", "3+x+4")
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1 and "Traceback" not in bad.stderr
    # no rolls and nothing at the prompt: stops, undecided, not an error
    eof = _subprocess("first-player", "--json")
    assert eof.returncode == 0 and json.loads(eof.stdout) == {"first": None, "events": []}
