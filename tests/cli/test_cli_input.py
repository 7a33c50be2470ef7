"""Every input gets a clear answer: the findings of issue 10, one test each.

Bad input: one line `Error: ...` (and a usage hint), exit 2; a store or file bmn cannot use:
one line, exit 1 (the `failed` fixture checks the shape). The property test over every
command and option is in test_cli_contract.py.
"""

import json

import click
import pytest
from errors import COMMANDS, parses
from samples import CASELLA, PAULHUS, RECORD

from bmn.frontends.cli.values import Seed, Whole
from bmn.frontends.output.plots import seats_out, trajectory
from bmn.frontends.output.records import describe_rank
from bmn.kernels.deal import parse_deal
from bmn.kernels.reference import play
from bmn.records.published import published_games
from bmn.records.report import published_ranking, rank_among
from bmn.records.store import Find, Store
from bmn.search import SearchOptionError, search

FIVE_ACES = PAULHUS + "A"  # 53 cards: the published deal and one more ace


@pytest.fixture(autouse=True)
def _no_inherited_store(monkeypatch):
    monkeypatch.delenv("BMN_STORE", raising=False)


# -- crashes ---------------------------------------------------------------------------------


def test_score_stops_at_a_line_that_is_not_utf8_keeping_the_results_before(bmn, failed, tmp_path):
    path = tmp_path / "deals.txt"
    path.write_bytes(f"{RECORD}\n# note\n{CASELLA}\n\xff\xfe-J/Q-\n{PAULHUS}\n".encode("latin-1"))
    result = bmn("score", path, "--json")
    failed(result, 2, "line 4: not UTF-8 text (byte 0xff at position 1)")
    assert [json.loads(line)["cards"] for line in result.stdout.splitlines()] == [8344, 474]


def test_score_of_a_binary_file_names_its_first_line(bmn, failed, tmp_path):
    path = tmp_path / "picture.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    result = bmn("score", path)
    failed(result, 2, "line 1: not UTF-8 text (byte 0x89 at position 1)")
    assert result.stdout == ""


def test_score_reads_a_byte_order_mark_and_crlf_lines(bmn, tmp_path):
    path = tmp_path / "deals.txt"
    path.write_bytes(f"\ufeff{RECORD}\r\n{PAULHUS}\r\n".encode())
    result = bmn("score", path, "--json")
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["cards"] for line in result.stdout.splitlines()] == [8344, 4791]


def seed_options():
    for path, command in COMMANDS.items():
        for param in command.params:
            if param.name in ("seed", "seeds"):
                yield path, param


def test_one_seed_rule_in_every_command(bmn, failed):
    found = list(seed_options())
    assert {path for path, _ in found} == {
        ("deal",),
        ("bench",),
        ("selfcheck",),
        ("stats",),
        ("search",),
        ("search-bench",),
    }
    for path, param in found:
        name = param.opts[0]
        for bad in ("-1", str(2**63), "x"):
            value = f"1,{bad}" if name == "--seeds" else bad
            assert not parses([*path, name, value]), (path, value)
        assert parses([*path, name, str(2**63 - 1)])
        assert param.name == "seeds" or isinstance(param.type, Seed)
    failed(bmn("deal", "--seed", "-1"), 2, "--seed", "a seed: a whole number from 0 to 2**63 - 1")
    largest = bmn("deal", "--seed", str(2**63 - 1))
    assert largest.exit_code == 0 and largest.stdout == bmn("deal", "--seed", 2**63 - 1).stdout


def test_every_whole_number_option_shares_one_type():
    for path, command in COMMANDS.items():
        for param in command.params:
            assert not isinstance(param.type, click.types.IntParamType), (path, param.name)
            if isinstance(param.type, Whole):
                assert param.type.high <= 2**63 - 1


def test_huge_numbers_are_refused_not_overflowed(bmn, failed, tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as db:
        db.add_finds(db.create_run("walk", "cards", 1, {}), [Find(PAULHUS, 4791, 670)])
    for value in ("99999999999999999999999", str(2**63)):
        result = bmn("records", "top", "--min-cards", value, "--store", path)
        failed(result, 2, "--min-cards", "too large: expected at most 2**63 - 1")
    largest = bmn("records", "top", "--min-cards", 2**63 - 1, "--store", path)
    assert largest.exit_code == 0 and "no finds in the store match" in largest.stdout


def test_durations_past_a_year_are_refused(bmn, failed, tmp_path):
    store = tmp_path / "s.sqlite"
    for value in ("999999999999999999999999999h", "366d", "8760h1s", str(10**400)):
        result = bmn("search", "--time", value, "--store", store)
        failed(result, 2, "--time", "more than a year (365d)")
    failed(bmn("search-bench", "--time", "400d"), 2, "more than a year")
    assert not store.exists()
    assert parses(["search", "--time", "365d"]) and parses(["search", "--time", "8h30m"])
    assert not parses(["search", "--time", "²"])  # a digit to str.isdigit, not to float


# -- the error contract -------------------------------------------------------------------------


def test_usage_error_is_one_line_and_a_hint(bmn):
    result = bmn("records", "top", "--by", "length")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "Error: Invalid value for '--by': 'length' is not one of 'cards', 'tricks'.",
        "Try 'bmn records top --help' for help.",
    ]
    unknown = bmn("nonsense")
    assert unknown.stderr.splitlines() == [
        "Error: No such command 'nonsense'.",
        "Try 'bmn --help' for help.",
    ]


def test_a_store_that_is_a_directory_is_an_unusable_store(bmn, failed, tmp_path):
    for args in (["search", "--iterations", "10"], ["records", "top"], ["records", "runs"]):
        line = failed(bmn(*args, "--store", tmp_path), 1, "is a directory, not a file")
        assert bmn(*args, "--store", tmp_path).stderr.strip() == line  # no usage hint


def test_resume_of_a_bad_number_or_a_missing_run_is_bad_input(bmn, failed, tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as db:
        db.create_run("walk", "cards", 1, {})
    failed(bmn("search", "--resume", "abc", "--store", path), 2, "'abc' is not a run number")
    failed(bmn("search", "--resume", "999", "--store", path), 2, "no run 999")
    failed(bmn("search", "--resume", str(10**30), "--store", path), 2, "too large")


# -- hands and options ----------------------------------------------------------------------


def test_unknown_option_after_a_hand_is_no_such_option(bmn, failed):
    failed(bmn("play", "--jsno", "-J/Q-"), 2, "No such option '--jsno'. Did you mean '--json'?")
    failed(bmn("play", "-J/Q-", "--limit-card=5"), 2, "Did you mean '--limit-cards'?")
    failed(bmn("records", "show", "-J/Q-", "--stroe", "x"), 2, "No such option '--stroe'")
    failed(bmn("loop", "--frobnicate", "-J/Q-"), 2, "No such option '--frobnicate'")
    # a typo inside a hand is still a hand's error
    failed(bmn("play", "-J-x", "Q-"), 2, "hand 1 ('-J-x'): unexpected 'x' at position 4")
    assert bmn("play", "--J--Q", "J-").exit_code == 0  # hands that look like options


def test_debug_after_the_command_says_where_it_goes(bmn, failed):
    failed(bmn("play", "--debug", "-J/Q-"), 2, "put it before the command", "'bmn --debug play")
    failed(bmn("records", "top", "--debug"), 2, "'bmn --debug records top ...'")


def test_a_bare_double_dash_hand_gets_a_hint(bmn, failed):
    line = failed(bmn("play", "-J", "--", "Q-"), 2, "join the deal with '/'")
    assert "a bare '--' is read as the end of options" in line
    assert bmn("play", "-J/--/Q-").exit_code == 0


def test_a_double_dash_before_the_hands_ends_the_options(bmn):
    """`--` first is the usual end of options: every argument after it is a hand, even one
    that looks like an option or is itself '--'."""
    plain = bmn("play", "-J", "Q-", "--json")
    for args in (["--", "-J", "Q-"], ["--json", "--", "-J", "Q-"], ["--", "-J/Q-"]):
        result = bmn("play", *args)
        assert result.exit_code == 0, result.stderr
        assert result.stdout == (plain.stdout if "--json" in args else bmn("play", "-J/Q-").stdout)
    two = bmn("play", "--json", "--", "-J", "--", "Q-")  # the second '--' is a hand
    assert two.exit_code == 0 and two.stdout == bmn("play", "--json", "-J/--/Q-").stdout


def test_debug_shows_the_traceback_of_a_notation_error(bmn):
    result = bmn("--debug", "play", "-X/Q-")
    assert result.exit_code == 2
    assert "Traceback" in result.stderr and "DealError: hand 1 ('-X')" in result.stderr
    assert result.stderr.splitlines()[-2].startswith("Error: Invalid value for HAND...")
    assert "Traceback" not in bmn("play", "-X/Q-").stderr


def test_a_suited_card_given_twice_is_an_error_naming_it(bmn, failed):
    failed(bmn("play", "AS AS", "KC 2S"), 2, "the card AS is given twice (in hand 1)")
    failed(bmn("play", "A\u2660 3D", "as"), 2, "the card AS is given twice (in hands 1 and 2)")
    failed(bmn("play", "10H", "TH"), 2, "the card 10H")
    assert bmn("play", "AS AH", "A A").exit_code == 0  # unsuited cards name no single card


def test_score_refuses_a_line_with_a_card_twice(bmn, failed):
    result = bmn("score", input="-J/Q-\nAS KD/AS 2C\n")
    failed(result, 2, "line 2: the card AS is given twice (in hands 1 and 2)")
    assert result.stdout.startswith("-J/Q- finished")


def test_a_deal_that_is_not_the_standard_deck_plays_with_one_warning(bmn):
    result = bmn("play", FIVE_ACES, "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {**play(parse_deal(FIVE_ACES)).as_dict(), "rules": "bmn"}
    assert result.stderr.splitlines() == [
        "warning: this deal is not the standard 52-card deck (36 numerals, 4 each of J Q K A):"
        " it has 53 cards: 36 numerals, 4 J, 4 Q, 4 K, 5 A; playing it as given"
    ]
    for args in (["play", RECORD], ["loop", CASELLA], ["records", "show", PAULHUS]):
        assert bmn(*args).stderr == ""  # the standard deck, however it is split
    assert len(bmn("records", "show", "-J/Q-").stderr.splitlines()) == 1  # once per command
    scored = bmn("score", input=f"{RECORD}\n-J/Q-\n{FIVE_ACES}\n")
    assert scored.exit_code == 0 and len(scored.stdout.splitlines()) == 3
    assert scored.stderr.splitlines() == [
        "warning: deal -J/Q- is not the standard 52-card deck (36 numerals, 4 each of J Q K A):"
        " it has 4 cards: 2 numerals, 1 J, 1 Q, 0 K, 0 A; scoring it as given"
    ]


# -- options that conflict ---------------------------------------------------------------------

EVERY_SEED = ["--strategy", "every", "--deck", "6,2,2,0,0", "--seed", "5"]
ONE_VALUE_HUNT = ["--objective", "loop", "--deck", "0,0,0,0,4"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--objective", "loop", "--strategy", "lahc"], "--strategy does nothing with --objective"),
        (["--objective", "loop", "--keep-above", "10"], "--keep-above does nothing with"),
        (["--objective", "loop", "--history", "10"], "--history does nothing with"),
        (["--objective", "cards", "--loop-deck", "standard"], "--loop-deck is for --objective"),
        (["--objective", "tricks", "--basin-states", "5"], "--basin-states is for --objective"),
        (["--history", "5"], "--history is for --strategy lahc only; walk keeps no history"),
        (["--strategy", "lahc", "--patience", "5"], "--patience is for --strategy climb only"),
        (["--resume", "--strategy", "climb"], "--resume takes its settings from the run"),
        (["--resume", "3", "--keep-above", "5"], "from the run; drop --keep-above"),
        (EVERY_SEED, "--seed does nothing with --strategy every: it plays every deal in rank"),
        (ONE_VALUE_HUNT, "'--deck': the deck 0,0,0,0,4 holds one card value: it has a single"),
    ],
)
def test_search_refuses_options_that_do_nothing_together(bmn, failed, tmp_path, args, message):
    store = tmp_path / "s.sqlite"
    bound = [] if "--resume" in args else ["--iterations", "10"]
    failed(bmn("search", *args, *bound, "--store", store), 2, message)
    assert not store.exists()


@pytest.mark.parametrize(
    "settings, option",
    [
        ({"strategy": "every", "deck": "6,2,1,1,0", "seed": 5}, "seed"),
        ({"strategy": "every", "device": "cuda", "deck": "6,2,1,1,0", "seed": 5}, "seed"),
        ({"objective": "loop", "deck": "0,0,0,0,4"}, "deck"),
    ],
)
def test_the_library_refuses_them_as_the_command_line_does(tmp_path, settings, option):
    """`--seed` with an enumeration and a loop hunt on a deck of one value did nothing."""
    with pytest.raises(SearchOptionError) as caught:
        search(tmp_path / "s.sqlite", **settings)
    assert caught.value.option == option and not (tmp_path / "s.sqlite").exists()


def test_options_that_belong_together_are_accepted(bmn, tmp_path):
    lahc = ["--strategy", "lahc", "--history", "50"]
    for args in (lahc, ["--strategy", "climb", "--patience", "9"]):
        result = bmn(
            "search", *args, "--iterations", "300", "--workers", "1", "--quiet", "--json",
            "--store", tmp_path / "s.sqlite",
        )  # fmt: skip
        assert result.exit_code == 0, result.output


def test_export_refuses_json_with_format_csv(bmn, failed, tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path):
        pass
    failed(bmn("records", "export", "--format", "csv", "--json", "--store", path), 2, "conflicts")
    assert bmn("records", "export", "--json", "--store", path).stdout.strip() == "[\n]"


@pytest.mark.slow
def test_time_and_iterations_stop_at_whichever_comes_first(bmn, tmp_path):
    store = tmp_path / "s.sqlite"

    def search(*args):
        result = bmn(
            "search", *args, "--seed", "1", "--workers", "1", "--quiet", "--json",
            "--store", store,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    by_count = search("--iterations", "5000", "--time", "1h")
    assert (by_count["status"], by_count["games"]) == ("finished", 5000)
    by_time = search("--time", "2s", "--iterations", str(10**15))
    assert by_time["status"] == "finished" and 0 < by_time["games"] < 10**15
    assert by_time["seconds"] >= 2  # its time used up (how far past depends on the machine)
    help_text = bmn("search", "--help").stdout
    assert help_text.count("whichever comes first") >= 2


# -- what a reader sees ----------------------------------------------------------------------


def test_every_option_has_a_description(bmn):
    for path, command in COMMANDS.items():
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"bmn {' '.join(path)} {param.opts[0]} has no description"
    assert "Worker threads for each trial" in bmn("search-bench", "--help").stdout


def test_rank_in_words():
    ranking = published_ranking()

    def words(cards: int) -> str:
        return describe_rank(rank_among("", cards, ranking), cards, ranking)

    assert words(4159) == (
        "the published records start at 4,791 cards (Paulhus 1999): would rank 10th of 10"
    )
    assert words(7000) == (
        "between Mann and Wu 2007 (7,157) and Collins 2006 (6,913): would rank 7th of 10"
    )
    assert words(7207) == (
        "as long as Nessler 2012 (7,207 cards): would rank 5th of 10, level with it"
    )
    assert words(9000) == (
        "a new record, longer than Nessler 2022 (8,344 cards): would rank 1st of 10"
    )
    # the loop game is published but has no length: 9 games finish, so a find ranks of 10
    assert len(published_games()) == 10 and len(ranking) == 9


def test_records_show_without_a_store_still_replays_and_ranks(bmn, tmp_path):
    absent = tmp_path / "absent.sqlite"
    result = bmn("records", "show", PAULHUS, "--store", absent)
    assert result.exit_code == 0, result.output
    assert f"no record store at {absent}" in result.stdout
    assert "the published record Paulhus 1999" in result.stdout
    shown = json.loads(bmn("records", "show", PAULHUS, "--json", "--store", absent).stdout)
    assert shown["store"] is None and shown["finds"] == []
    assert shown["published_rank"] == {"rank": 9, "of": 9, "published": "Paulhus 1999"}
    assert not absent.exists()


def test_records_plot_of_a_loop_hunt_says_there_is_nothing_to_plot(bmn, tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as db:
        hunt = db.create_run(None, "loop", 1, {})
        db.add_finds(hunt, [Find(CASELLA, 474, 66, "loop")])
    out = tmp_path / "p.png"
    result = bmn("records", "plot", "1", "-o", out, "--store", path)
    assert result.exit_code == 0 and result.stdout == "" and not out.exists()
    assert result.stderr.splitlines() == [
        "nothing to plot: run 1 hunted loops, which have no length to draw; list a loop"
        f" hunt's cycles with: bmn records loops --store {path}"
    ]
    assert "nothing to plot" in bmn("records", "plot", "-o", out, "--store", path).stderr


@pytest.mark.parametrize(
    "deal",
    [
        "--K/J-/---",
        "Q/J/-/-",
        "---KKQ-AQJ----Q-Q-/AJ--J---A-JK-----/----------K--A---",
        "-J-----------/K------K---K-/-QA--Q--AA-Q-/J-Q-JK---AJ--",
    ],
)
def test_seats_out_are_every_loser_by_the_reference_engine(deal):
    traj = trajectory(parse_deal(deal))
    result = play(parse_deal(deal))
    out = seats_out(traj)
    losers = set(range(len(traj.sizes[0]))) - {result.winner}
    assert sorted(seat for seat, _ in out) == sorted(losers)
    assert max(trick for _, trick in out) == result.tricks  # the last one out ends the game
    for seat, trick in out:
        assert traj.sizes[trick - 1, seat] > 0 and not traj.sizes[trick:, seat].any()


def test_plot_marks_seats_out_in_the_legend(bmn, tmp_path, monkeypatch):
    import matplotlib

    monkeypatch.setitem(matplotlib.rcParams, "svg.fonttype", "none")  # text as <text>
    out = tmp_path / "four.svg"
    result = bmn("plot", "-J-----------/K------K---K-/-QA--Q--AA-Q-/J-Q-JK---AJ--", "-o", out)
    assert result.exit_code == 0, result.output
    svg = out.read_text()
    for text in ("seat 1 out, trick 8", "seat 2 out, trick 9", "seat 3 out, trick 55"):
        assert text in svg
    two = tmp_path / "two.svg"
    bmn("plot", RECORD, "-o", two)
    assert " out, trick" not in two.read_text()  # two seats: the game ends with the first out
    assert "bmn-plot-<8 hex digits>.png" in bmn("plot", "--help").stdout.replace("\n      ", " ")


def test_ctrl_c_outside_a_search_is_exit_130(bmn, monkeypatch):
    from bmn.kernels import reference

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(reference, "play", interrupted)
    result = bmn("play", RECORD)
    assert result.exit_code == 130 and result.stderr.strip() == "Aborted!"


# -- the library's words and the command line's ------------------------------------------------


def test_a_wrong_number_of_hands_is_said_in_each_front_ends_words(bmn, failed):
    """The library said 'give them as separate arguments', the command line's words."""
    from bmn.kernels import DealError
    from bmn.kernels import play as play_deal

    with pytest.raises(DealError) as said:
        play_deal("-J/Q-/-/-/-")
    assert str(said.value) == (
        "a deal has 2 to 4 hands, got 5; join the hands with '/', or give them as a list"
    )
    line = failed(bmn("play", "-J/Q-/-/-/-"), 2)
    assert line.endswith(
        "a deal has 2 to 4 hands, got 5; give them as separate arguments or join them with '/'"
    )


def test_a_missing_store_is_said_in_each_front_ends_words(bmn, failed, tmp_path):
    from bmn.records.store import StoreError

    absent = tmp_path / "absent.sqlite"
    with pytest.raises(StoreError) as said:
        Store(absent, create=False)
    assert str(said.value) == (
        f"no record store at {absent}; a search makes one, or name a store that exists"
    )
    assert failed(bmn("records", "runs", "--store", absent), 1) == (
        f"Error: no record store at {absent}; run `bmn search` to make one, or point --store"
        " / BMN_STORE at an existing store"
    )
    assert not absent.exists()
