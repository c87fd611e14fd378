"""TableConfig: regulation defaults, the dict (TOML) form, and errors that name the key."""
from __future__ import annotations

import tomllib

import pytest

from controller.rules import TableConfig
from messages import ConfigError
from rules_helpers import bet, play, refused, roll


def test_defaults_are_the_regulation():
    config = TableConfig()
    assert config.maximum("pass", None) == 500
    assert config.maximum("place", 6) == config.maximum("place", 8) == 600
    assert config.maximum("place", 5) == 500
    assert config.maximum("raffle", 3) == 150
    assert config.maximum("beat_dealer", None) == 500
    assert [config.max_odds(False, n, 500) for n in (4, 5, 6, 8, 9, 10)] == [500, 600, 500, 500, 600, 500]
    assert {config.max_odds(True, n, 500) for n in (4, 5, 6, 8, 9, 10)} == {600}
    assert not config.field_2_12_pays_2_to_1


def test_round_trip_through_toml_text():
    text = """
    seats = ["1", "2", "3"]
    field_2_12_pays_2_to_1 = true
    [limits]
    default = 1000
    place = { 6 = 1200, 8 = 1200 }
    [odds]
    take = { 5 = 1200 }
    """
    config = TableConfig.from_dict(tomllib.loads(text.replace("\n    ", "\n")))
    assert config.seats == ("1", "2", "3") and config.field_2_12_pays_2_to_1
    assert config.maximum("field", None) == 1000 and config.maximum("place", 8) == 1200
    assert config.maximum("raffle", 1) == 150  # regulation exceptions stay unless overridden
    assert config.max_odds(False, 5, 500) == 1200
    assert TableConfig.from_dict(config.to_dict()) == config
    assert TableConfig.from_dict({}) == TableConfig()


def test_one_amount_for_a_bet_is_its_maximum_on_every_number():
    """An operator raising "the place limit" means every place number, the regulation's 6 and 8 too."""
    config = TableConfig.from_dict({"limits": {"place": 700}})
    assert {config.maximum("place", n) for n in (4, 5, 6, 8, 9, 10)} == {700}
    assert config.to_dict()["limits"]["place"] == 700
    assert TableConfig.from_dict(config.to_dict()) == config


def test_a_bet_limited_as_a_whole_and_on_one_number_is_written_number_by_number():
    """TOML holds either one amount or a table per bet: the regulation's raffle maximum beside one
    raffle of the table's own is written out for each number, and reads back the same."""
    config = TableConfig.from_dict({"limits": {"raffle": {"1": 100}}})
    assert [config.maximum("raffle", n) for n in range(1, 7)] == [100, 150, 150, 150, 150, 150]
    written = config.to_dict()
    assert written["limits"]["raffle"] == {"1": 100, "2": 150, "3": 150, "4": 150, "5": 150, "6": 150}
    again = TableConfig.from_dict(written)
    assert [again.maximum("raffle", n) for n in range(1, 7)] == [100, 150, 150, 150, 150, 150]
    assert again.to_dict() == written
    built = TableConfig(limits=(("place", None, 700), ("place", 6, 600)))
    assert built.to_dict()["limits"]["place"] == {"4": 700, "5": 700, "6": 600, "8": 700, "9": 700, "10": 700}


@pytest.mark.parametrize("data,key", [
    ({"colour": "green"}, "colour"),
    ({"seats": []}, "seats"),
    ({"seats": ["A", "A"]}, "seats"),
    ({"min_bet": 0}, "min_bet"),
    ({"payout_unit": 2.5}, "payout_unit"),
    ({"field_2_12_pays_2_to_1": "yes"}, "field_2_12_pays_2_to_1"),
    ({"limits": {"pas": 500}}, "limits.pas"),
    ({"limits": {"default": -1}}, "limits.default"),
    ({"limits": {"place": {"seven": 500}}}, "limits.place.seven"),
    ({"limits": {"odds": 500}}, "limits.odds"),
    ({"limits": {"place": {"7": 500}}}, "limits.place.7"),
    ({"limits": {"field": {"2": 500}}}, "limits.field"),
    ({"odds": {"take": {"7": 500}}}, "odds.take.7"),
    ({"odds": {"laying": {}}}, "odds.laying"),
])
def test_errors_name_the_key(data, key):
    with pytest.raises(ConfigError) as info:
        TableConfig.from_dict(data)
    assert info.value.key == key and str(info.value).startswith(key + ":")


def test_payout_unit_rounds_wins_down():
    config = TableConfig(payout_unit=25)
    _, effects = play("craps", [roll(2, 2), bet("A", "place", 600, 6), roll(3, 3)], config)
    assert effects[0]["paid"] == 600 + 700
    _, effects = play("craps", [roll(2, 2), bet("A", "place", 500, 6), roll(3, 3)], config)
    assert effects[0]["paid"] == 500 + 575  # 583.33 cents down to the quarter


@pytest.mark.parametrize("game, setup, event", [
    ("craps", [], {"bet": "pass"}),
    ("craps", [roll(2, 2)], {"bet": "place", "number": 6}),
    ("craps", [bet("A", "pass", 500), roll(2, 2)], {"bet": "odds", "number": 4}),
    ("hazard", [], {"bet": "high"}),
    ("bang", [], {"bet": "beat_dealer"}),
])
def test_a_stake_off_the_payout_unit_is_refused(game, setup, event):
    """Rounding wins down to the unit would pay such a stake short even at even money."""
    config = TableConfig(payout_unit=25)
    state, _ = play(game, setup, config)
    rejection = refused(state, {"event": "bet", "seat": "A", "amount": 310, **event})
    assert "not a multiple of this table's payout unit of $0.25" in rejection.reason
    state, _ = play(state, [{"event": "bet", "seat": "A", "amount": 300, **event}])
    assert sum(w.amount + w.odds for w in state.layout) == (300 if event["bet"] != "odds" else 800)


def test_a_config_built_directly_is_checked_too():
    with pytest.raises(ConfigError):
        TableConfig(seats=())
    with pytest.raises(ConfigError) as info:
        TableConfig(payout_unit=0)
    assert info.value.key == "payout_unit"


def test_every_wrong_setting_is_reported_at_once():
    """One bad key does not hide the next: the operator mends the file in one go."""
    with pytest.raises(ConfigError) as info:
        TableConfig.from_dict({
            "seatz": ["A"], "min_bet": 0, "field_2_12_pays_2_to_1": "yes",
            "limits": {"pas": 500, "default": -1, "place": {"7": 500, "6": 0}},
            "odds": {"laying": {}, "take": {"7": 500}, "reference_bet": "5"},
        })
    assert [key for key, _ in info.value.problems] == [
        "seatz", "min_bet", "field_2_12_pays_2_to_1",
        "limits.pas", "limits.default", "limits.place.7", "limits.place.6",
        "odds.laying", "odds.reference_bet", "odds.take.7",
    ]
    assert info.value.key == "seatz"
    assert str(info.value).splitlines()[1] == "min_bet: expected a positive whole number of cents, got 0"


def test_the_good_settings_beside_a_bad_one_are_not_taken_half_way():
    """A file with an error builds no table at all, not one with only its good keys."""
    with pytest.raises(ConfigError) as info:
        TableConfig.from_dict({"limits": {"place": {"6": 1000, "8": "lots"}}})
    assert info.value.problems == (("limits.place.8", "expected a positive whole number of cents, got 'lots'"),)


@pytest.mark.parametrize("data, key", [
    ({"min_bet": 1000}, "min_bet"),  # above every maximum, place 6 and 8's $6 included
    ({"min_bet": 300, "payout_unit": 700}, "payout_unit"),  # no multiple of $7 from $3 up to $6
    ({"payout_unit": 100000}, "payout_unit"),
])
def test_a_table_that_would_refuse_every_bet_is_named(data, key):
    from controller.rules.config import unbettable

    config = TableConfig.from_dict(data)  # the engine takes it: a journal started so still replays
    assert [k for k, _ in unbettable(config, "craps")] == [key]


@pytest.mark.parametrize("data", [
    {"min_bet": 500},  # exactly the general maximum
    {"min_bet": 600},  # only place 6 and 8 take it, but they do
    {"min_bet": 1000, "limits": {"pass": 2000}},  # one bet's own maximum is enough
    {"min_bet": 300, "payout_unit": 250},  # $5.00 is two units
])
def test_a_table_that_can_take_a_bet_is_not_refused_for_its_minimum_or_unit(data):
    from controller.rules.config import unbettable

    assert unbettable(TableConfig.from_dict(data), "craps") == []


@pytest.mark.parametrize("game, data, refused", [
    ("hazard", {"min_bet": 600}, True),  # place 6 and 8 are craps bets: nothing at hazard takes $6
    ("bang", {"min_bet": 600}, True),
    ("hazard", {"min_bet": 1000, "limits": {"pass": 2000}}, True),  # another game's bet
    ("hazard", {"min_bet": 1000, "limits": {"high": 2000}}, False),
    ("craps", {"min_bet": 600}, False),
])
def test_a_table_takes_no_bet_by_its_own_games_maxima(game, data, refused):
    from controller.rules.config import unbettable

    assert bool(unbettable(TableConfig.from_dict(data), game)) is refused


def test_maxima_above_the_regulation_are_named_but_allowed():
    """The limits are the house's to set; the operator must still see what leaves the regulation."""
    assert TableConfig().above_regulation() == []
    config = TableConfig.from_dict({"limits": {"default": 1000, "place": {"6": 700}, "raffle": 150},
                                    "odds": {"reference_bet": 1000, "take": {"5": 1200, "6": 1100}}})
    assert [key for key, _ in config.above_regulation()] == ["limits.default", "limits.place.6", "odds.take.6"]
    assert "§4620.3(e)" in dict(config.above_regulation())["limits.default"]
