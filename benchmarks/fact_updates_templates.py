"""The shapes and values the written knowledge-update cases are drawn from.

A :class:`Kind` (the kinds are in :mod:`benchmarks.fact_updates_kinds`) is one attribute that
changes: the wordings of its first statement, of the change (``{old_x}`` is the earlier
value), of the question, and of a fact told late about an earlier ``{year}``. A :class:`Pair`
(:mod:`benchmarks.fact_updates_pairs`) is two attributes of one subject that must both stay
current, chosen so that they often share words ("lives in Berlin" / "loves Berlin's museums").
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

PERSONAL = ("name", "name", "name", "I")
PROJECT = ("we", "we", "team")

CITIES = (
    "Paris", "Berlin", "Lisbon", "Toronto", "Osaka", "Nairobi", "Madrid", "Oslo", "Denver",
    "Melbourne", "Prague", "Seoul", "Dublin", "Austin", "Vienna", "Bogota", "Cairo", "Zurich",
)  # fmt: skip
COMPANIES = (
    "Globex", "Initech", "Acme", "Umbrella", "Stripe", "Spotify", "Shopify", "Siemens",
    "Deloitte", "Airbus", "Canonical", "Datadog", "Zalando", "Atlassian", "Nokia", "Philips",
)  # fmt: skip
TITLES = (
    "junior developer", "senior developer", "team lead", "engineering manager", "nurse",
    "head nurse", "teacher", "head of department", "data analyst", "data scientist",
    "product manager", "designer", "staff engineer", "sales associate", "store manager",
)  # fmt: skip
PARTNERS = ("Sam", "Noor", "Leo", "Mia", "Jonas", "Aiko", "Ravi", "Elena", "Tom", "Yara")
FAVOURITES: dict[str, tuple[str, ...]] = {
    "book": ("Dune", "Middlemarch", "Beloved", "The Hobbit", "Circe", "Ulysses"),
    "film": ("Alien", "Amelie", "Parasite", "Up", "Heat", "Arrival"),
    "band": ("Radiohead", "ABBA", "Queen", "Blur", "Daft Punk", "Portishead"),
    "food": ("sushi", "ramen", "tacos", "lasagna", "pho", "falafel"),
    "sport": ("tennis", "football", "basketball", "cricket", "rugby", "cycling"),
}
DIETS = ("vegetarian", "vegan", "pescatarian", "keto", "gluten-free")
EMAILS = (
    "{n}@fastmail.com", "{n}.work@gmail.com", "{n}@proton.me", "hi@{n}.dev", "{n}@outlook.com",
)  # fmt: skip
STREETS = (
    "12 Elm Street", "4 Harbour Road", "88 King Street", "27 Rue Oberkampf", "9 Linden Allee",
    "301 Pine Avenue", "15 Mill Lane", "62 Via Roma", "7 Calle Mayor", "140 Queen Street",
)  # fmt: skip
VERSIONS = {
    "PostgreSQL": ("13", "14", "15", "16", "17"),
    "Python": ("3.9", "3.10", "3.11", "3.12", "3.13"),
    "Node": ("16", "18", "20", "22"),
    "Django": ("3.2", "4.1", "4.2", "5.0", "5.1"),
    "Kubernetes": ("1.26", "1.27", "1.28", "1.29", "1.30"),
    "Terraform": ("1.4", "1.5", "1.6", "1.7"),
    "Java": ("11", "17", "21"),
    "React": ("16", "17", "18", "19"),
}
TOOLS = {
    "CI": ("Jenkins", "GitHub Actions", "GitLab CI", "CircleCI", "Buildkite"),
    "issue tracking": ("Jira", "Linear", "GitHub Issues", "YouTrack"),
    "team chat": ("Slack", "Microsoft Teams", "Mattermost", "Discord"),
    "monitoring": ("Datadog", "Grafana", "New Relic", "Prometheus"),
    "hosting": ("AWS", "Google Cloud", "Azure", "Hetzner"),
    "the main database": ("MySQL", "PostgreSQL", "MongoDB", "CockroachDB"),
}
EVENTS = (
    "the launch", "the 2.0 release", "the team offsite", "the database migration",
    "the customer demo", "the code freeze", "the board review", "the beta", "the audit",
)  # fmt: skip
DATES = (
    "March 3", "March 17", "April 8", "April 29", "May 12", "May 30", "June 14", "July 1",
    "July 22", "August 9", "September 5", "October 14", "November 3", "December 1",
)  # fmt: skip
SERVICES = ("payments", "search", "billing", "login", "notifications", "checkout", "reporting")
OWNERS = (
    "the platform team", "the data team", "the growth team", "Alice's team", "the SRE team",
    "Bob", "Priya", "the mobile team", "the infra team",
)  # fmt: skip
DECISIONS = {
    "the public API": ("REST", "GraphQL", "gRPC"),
    "authentication": ("an in-house service", "Auth0", "Keycloak", "Okta"),
    "the frontend": ("React", "Vue", "Svelte", "plain server-rendered pages"),
    "the repository layout": ("a monorepo", "one repository per service"),
    "the job queue": ("Celery", "RabbitMQ", "Kafka", "SQS"),
}
ITEMS = (
    "the migration", "the redesign", "the SSO project", "ticket PAY-412", "the v3 rollout",
    "the security review", "the data export feature", "the onboarding revamp",
)  # fmt: skip
STATUSES = ("planned", "in progress", "blocked", "in review", "done", "on hold")
CARS = (
    "Toyota Corolla", "Volkswagen Golf", "Tesla Model 3", "Honda Civic", "Ford Focus",
    "Kia Niro",
)  # fmt: skip
MAJORS = ("biology", "computer science", "economics", "history", "physics", "law")
PETS = ("dog", "cat", "parrot", "rabbit", "hamster", "tortoise")
HOBBIES = ("tennis", "violin", "yoga", "pottery", "chess", "karate", "swimming", "piano", "salsa")
PET_NAMES = ("Rex", "Miso", "Biscuit", "Luna", "Kiwi", "Pepper", "Clover", "Mochi")
SURNAMES = ("Smith", "Okafor", "Novak", "Garcia", "Tanaka", "Fischer", "Haddad", "Larsen")
PROJECTS = ("Falcon", "Atlas", "Nimbus", "Orion", "Phoenix", "Quartz", "Helix", "Tundra")


@dataclass(frozen=True)
class Kind:
    key: str
    subjects: tuple[str, ...]
    pools: dict[str, tuple[str, ...]]  # the first slot changes, the others are drawn once
    first: tuple[str, ...]
    change: tuple[str, ...]
    questions: tuple[str, ...]
    late: tuple[str, ...] = ()
    chain: bool = True  # may change twice
    ends: str = ""  # the answer once the value ended ("no longer"); the slot then stays

    def draw(self, rng: random.Random, steps: int) -> list[dict[str, str]]:
        vary, *fixed = self.pools
        base = {slot: rng.choice(self.pools[slot]) for slot in fixed}
        if self.ends:
            value = rng.choice(self.pools[vary])
            return [{**base, vary: value}, {**base, vary: value, "_ended": "1"}]
        return [{**base, vary: v} for v in rng.sample(self.pools[vary], steps)]

    def answer(self, slots: dict[str, str]) -> str:
        if "_ended" in slots:
            return self.ends
        return slots[next(iter(self.pools))]


@dataclass(frozen=True)
class Dependent(Kind):
    """The changing slot's values come from the second slot's table entry."""

    def draw(self, rng: random.Random, steps: int) -> list[dict[str, str]]:
        vary, on = list(self.pools)[:2]
        table: dict[str, dict[str, tuple[str, ...]]] = {
            "tool": TOOLS,
            "version": VERSIONS,
            "choice": DECISIONS,
            "item": FAVOURITES,
        }
        key = rng.choice([k for k in self.pools[on] if len(table[vary][k]) >= steps])
        values = table[vary][key]
        if vary == "version":  # versions go up
            start = rng.randrange(len(values) - steps + 1)
            picked = list(values[start : start + steps])
        else:
            picked = rng.sample(values, steps)
        return [{on: key, vary: v} for v in picked]


@dataclass(frozen=True)
class Pair:
    key: str
    subjects: tuple[str, ...]
    pools: dict[str, tuple[str, ...]]  # slots sharing a pool get distinct values
    first: tuple[str, ...]
    second: tuple[str, ...]
    same: dict[str, str] = field(default_factory=dict)  # slot -> the slot it copies

    def draw(self, rng: random.Random) -> dict[str, str]:
        out: dict[str, str] = {}
        for slot, pool in self.pools.items():
            used = {v for s, v in out.items() if self.pools[s] is pool}
            out[slot] = rng.choice([v for v in pool if v not in used])
        return out


RELATIVES = ("sister", "brother", "mother", "father", "cousin", "best friend")
MUSEUMS = ("museums", "food markets", "old town", "parks", "jazz bars", "bookshops")
SPORTS = ("runs", "swims", "cycles", "climbs", "rows")
DAYS = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays")
LANGUAGES = ("French", "German", "Spanish", "Japanese", "Arabic", "Portuguese", "Korean")
MONTH_DAYS = ("March 3", "April 19", "June 10", "July 28", "September 2", "November 15")
ON_CALL = (
    "runs on Kubernetes", "is written in Go", "has an on-call rotation", "logs to Datadog",
    "is deployed twice a week", "has a 99.9% uptime target",
)  # fmt: skip
PG_FACTS = (
    "{S} [backs|back] up {tool} nightly", "{P} {tool} database is about 40 GB",
    "{S} [monitors|monitor] {tool} with Grafana", "{tool} runs in a managed cluster",
    "{S} [has|have] a read replica of {tool}",
)  # fmt: skip
