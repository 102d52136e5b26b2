"""Two facts read as points of one series of numbers (issue 30): the later one carries a
quantity of the same shape and scale as the earlier one's, and they are not one wording
told of two things (memex_core.domain.memory.quantity_series)."""

from __future__ import annotations

import pytest

from memex_core.domain.memory.quantity_series import parallel, quantities, same_series


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("weighed in at 88.2", "84.9 this morning, slowly slowly"),  # bare, one decimal
        ("car's on 48,200 miles", "53,900 on the clock at the MOT"),  # unit, then bare
        ("sertraline 50mg", "doc upped me to 100mg"),  # a unit glued on
        ("full build takes ~14 min", "build is 6 minutes after the cache fix"),
        ("newsletter at 1,200 subs", "2k subscribers!"),  # thousands by a 'k'
        ("5k followers now for Ellie's bakery", "The bakery account is at 12,400"),
        ("day rate £450", "quoting £550/day for new clients"),  # a currency
        ("Rent is £1,320/month", "Rent 1,450 from May"),  # the amount again, its sign left out
        ("SDK 3.2.0 released", "3.3.0 is out"),  # a dotted version
        ("prescription -2.25 both eyes", "eye test: -2.75 left, -2.50 right now"),
    ],
)
def test_a_new_point_of_the_series_is_read(earlier: str, later: str) -> None:
    assert same_series(earlier, later)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("App v2 launch is 22 July", "App v2 code freeze is 10 July"),  # dates
        ("standup at 9am", "retro at 10am"),  # times of day
        ("I have 2 kids", "I run 3 times a week"),  # small bare integers
        ("We moved here in 2019", "I started the job in 2021"),  # years
        ("The Pro plan is $39 a month", "The Team plan is $99 a month"),  # two things
        ("I run about 30km a week", "I cycle about 60km a week commuting"),
        ("rent is £1,200 a month", "rent is $1,300 a month"),  # another currency
        ("rent is £1,200 a month", "walked 1,300 steps"),  # no sign, but a unit in its place
        ("Netflix is £10.99", "Netflix 11 screens"),  # no sign, another shape
        ("weighed in at 88.2", "88.2 again this morning"),  # the same value
        ("build takes 4 min", "build takes 40 min"),  # ten times: another thing
        ("we're on Postgres 15.4.1", "we pay 15.5 a month for it"),  # a version, a number
        ("I'm on 52k", "temperature 21.5 today"),
        # a preposition after a small number is no unit: "number 2 about the kingfisher"
        ("fact number 1 about the kingfisher", "fact number 2 about the kingfisher"),
    ],
)
def test_no_series_is_read_between_these(earlier: str, later: str) -> None:
    assert not same_series(earlier, later)


def test_a_quantity_keeps_its_unit_and_scale() -> None:
    (pay,) = quantities("I'm on 58k")
    assert (pay.value, pay.decimals, pay.bare) == (58000.0, 0, True)
    (weight,) = quantities("Miso is down to 5.4kg, diet working")
    assert (weight.value, weight.unit, weight.decimals) == (5.4, "kg", 1)
    assert quantities("flight on 9 May at 13:05") == []  # a date and a time


def test_parallel_needs_a_word_of_its_own_on_each_side() -> None:
    assert parallel("The Pro plan is $39 a month", "The Team plan is $99 a month")
    assert not parallel("Rent is £1,200 a month", "Rent is £1,350 a month")  # one thing
    assert not parallel("Rent is £1,200 a month", "Rent went up again, it's £1,425 now")
