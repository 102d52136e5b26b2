"""The attributes that change in the written knowledge-update cases, with their wordings
(:class:`benchmarks.fact_updates_templates.Kind`)."""

from __future__ import annotations

from benchmarks.fact_updates_templates import (
    CARS,
    CITIES,
    COMPANIES,
    DATES,
    DECISIONS,
    DIETS,
    EMAILS,
    EVENTS,
    FAVOURITES,
    HOBBIES,
    ITEMS,
    MAJORS,
    OWNERS,
    PARTNERS,
    PERSONAL,
    PET_NAMES,
    PETS,
    PROJECT,
    PROJECTS,
    SERVICES,
    STATUSES,
    STREETS,
    SURNAMES,
    TITLES,
    TOOLS,
    VERSIONS,
    Dependent,
    Kind,
)


def _kinds() -> tuple[Kind, ...]:
    fav = tuple(FAVOURITES)
    return (
        Kind(
            "residence",
            PERSONAL,
            {"city": CITIES},
            (
                "{S} [lives|live] in {city}",
                "{S} [is|am] based in {city}",
                "{P} home is in {city}",
                "{S} [has|have] an apartment in {city} and [lives|live] there",
            ),
            (
                "{S} moved to {city}",
                "{S} now [lives|live] in {city}",
                "{S} relocated to {city}",
                "{S} [lives|live] in {city} now",
                "{S} just moved from {old_city} to {city}",
                "{S} [lives|live] in {city}",
                "{S} left {old_city}; home is {city} these days",
                "{S} [has|have] settled in {city} after leaving {old_city}",
            ),
            (
                "Where [does|do] {S} live?",
                "Which city [is|am|are] {S} based in?",
                "Where is {P} home?",
            ),
            (
                "{S} lived in {city} in {year}",
                "Back in {year}, {S} lived in {city}",
                "From {year} to {next}, {S} lived in {city}",
                "In {year} {S} was living in {city}",
            ),
        ),
        Kind(
            "employer",
            PERSONAL,
            {"company": COMPANIES},
            (
                "{S} [works|work] at {company}",
                "{S} [is|am] employed by {company}",
                "{P} employer is {company}",
                "{S} [has|have] a job at {company}",
            ),
            (
                "{S} started a new job at {company}",
                "{S} joined {company}",
                "{S} now [works|work] at {company}",
                "{S} left {old_company} and joined {company}",
                "{S} [works|work] at {company}",
                "{S} switched jobs and [is|am] at {company} now",
                "{S} accepted an offer from {company} and started there this week",
            ),
            (
                "Where [does|do] {S} work?",
                "Who is {P} employer?",
                "Which company [does|do] {S} work for?",
            ),
            (
                "{S} worked at {company} in {year}",
                "Back in {year}, {S} was working at {company}",
                "From {year} to {next}, {S} worked for {company}",
            ),
        ),
        Kind(
            "job_title",
            PERSONAL,
            {"title": TITLES},
            ("{S} [is|am] a {title}", "{S} [works|work] as a {title}", "{P} job title is {title}"),
            (
                "{S} got promoted to {title}",
                "{S} [is|am] now a {title}",
                "{S} became a {title}",
                "{P} new title is {title}",
                "{S} [works|work] as a {title} these days",
                "{S} [is|am] a {title}",
            ),
            ("What is {P} job title?", "What [does|do] {S} do for a living?", "What is {P} role?"),
            ("{S} was a {title} in {year}", "Back in {year}, {S} worked as a {title}"),
        ),
        Kind(
            "partner",
            ("name", "name", "I"),
            {"partner": PARTNERS},
            (
                "{S} [is|am] dating {partner}",
                "{P} partner is {partner}",
                "{S} [has|have] been seeing {partner} for a few months",
            ),
            (
                "{S} broke up with {old_partner} and [is|am] now dating {partner}",
                "{P} new partner is {partner}",
                "{S} [is|am] seeing {partner} now",
                "{old_partner} and {S} split up; {S} [is|am] with {partner} these days",
            ),
            ("Who is {P} partner?", "Who [is|am|are] {S} dating?"),
            ("In {year}, {S} was dating {partner}",),
        ),
        Kind(
            "favourite",
            PERSONAL,
            {"item": (), "what": fav},
            (
                "{P} favourite {what} is {item}",
                "{S} [loves|love] {item} more than any other {what}",
                "{item} is {P} favourite {what}",
            ),
            (
                "{P} favourite {what} is {item} now",
                "These days {P} favourite {what} is {item}",
                "{S} [has|have] gone off {old_item}; {P} favourite {what} is {item} now",
                "{P} favourite {what} is {item}",
                "{item} has replaced {old_item} as {P} favourite {what}",
            ),
            ("What is {P} favourite {what}?",),
            ("In {year}, {P} favourite {what} was {item}",),
        ),
        Kind(
            "diet",
            PERSONAL,
            {"diet": DIETS},
            (
                "{S} [is|am] {diet}",
                "{S} [eats|eat] a {diet} diet",
                "{S} [follows|follow] a {diet} diet",
            ),
            (
                "{S} [is|am] {diet} now",
                "{S} switched from a {old_diet} diet to a {diet} one",
                "{S} went {diet} last month",
                "{S} [has|have] been {diet} since the spring",
            ),
            ("What diet [does|do] {S} follow?", "[Is|Am] {S} vegetarian, vegan or something else?"),
            ("{S} was {diet} in {year}",),
        ),
        Kind(
            "email",
            PERSONAL,
            {"email": EMAILS},
            (
                "{P} email address is {email}",
                "{S} can be reached at {email}",
                "{P} email is {email}",
            ),
            (
                "{P} new email address is {email}",
                "{S} changed {P} email to {email}",
                "Use {email} for {O} from now on",
                "{P} email is {email}",
                "{S} no longer [uses|use] {old_email}; write to {email}",
            ),
            ("What is {P} email address?", "What email address should be used for {O}?"),
        ),
        Kind(
            "address",
            PERSONAL,
            {"street": STREETS},
            (
                "{P} address is {street}",
                "{S} [lives|live] at {street}",
                "{P} home address is {street}",
            ),
            (
                "{P} new address is {street}",
                "{S} moved to {street}",
                "{S} [lives|live] at {street} now",
                "{P} address changed to {street}",
                "{S} [lives|live] at {street}",
            ),
            ("What is {P} address?", "Where should the parcel for {O} go?"),
            ("In {year}, {S} lived at {street}",),
        ),
        Kind(
            "surname",
            ("name",),
            {"surname": SURNAMES},
            ("{P} last name is {surname}", "{P} surname is {surname}"),
            (
                "{S} changed {P} last name to {surname}",
                "{P} surname is {surname} now",
                "After the wedding, {P} last name is {surname}",
                "{S} goes by {surname} these days",
            ),
            ("What is {P} last name?", "What surname [does|do] {S} use?"),
            chain=False,
        ),
        Kind(
            "car",
            PERSONAL,
            {"car": CARS},
            ("{S} [drives|drive] a {car}", "{P} car is a {car}", "{S} [owns|own] a {car}"),
            (
                "{S} sold the {old_car} and bought a {car}",
                "{S} [drives|drive] a {car} now",
                "{P} new car is a {car}",
                "{S} traded in {P} {old_car} for a {car}",
            ),
            ("What car [does|do] {S} drive?", "What is {P} car?"),
            ("In {year}, {S} drove a {car}",),
        ),
        Kind(
            "studies",
            ("name", "I"),
            {"major": MAJORS},
            (
                "{S} [is|am] studying {major}",
                "{S} [majors|major] in {major}",
                "{P} major is {major}",
            ),
            (
                "{S} switched {P} major to {major}",
                "{S} [is|am] studying {major} now",
                "{S} changed from {old_major} to {major}",
                "{P} major is {major} now",
            ),
            ("What [does|do] {S} study?", "What is {P} major?"),
            chain=False,
        ),
        Kind(
            "tool_version",
            PROJECT,
            {"version": (), "tool": tuple(VERSIONS)},
            (
                "{S} [runs|run] {tool} {version}",
                "{S} [is|am|are] on {tool} {version}",
                "Production uses {tool} {version}",
                "{P} services run on {tool} {version}",
            ),
            (
                "{S} upgraded to {tool} {version}",
                "{S} [is|am|are] on {tool} {version} now",
                "{tool} was bumped from {old_version} to {version}",
                "The upgrade to {tool} {version} is done",
                "{S} [runs|run] {tool} {version}",
                "{S} migrated everything from {tool} {old_version} to {version}",
            ),
            ("Which {tool} version do we run?", "What version of {tool} is in production?"),
            (
                "Back in {year}, {S} ran {tool} {version}",
                "In {year} production was on {tool} {version}",
            ),
        ),
        Kind(
            "tool_choice",
            PROJECT,
            {"tool": (), "purpose": tuple(TOOLS)},
            (
                "{S} [uses|use] {tool} for {purpose}",
                "{purpose} runs on {tool}",
                "For {purpose}, {S} [relies|rely] on {tool}",
            ),
            (
                "{S} switched {purpose} from {old_tool} to {tool}",
                "{S} replaced {old_tool} with {tool} for {purpose}",
                "{purpose} runs on {tool} now",
                "{S} moved {purpose} to {tool}",
                "{S} [uses|use] {tool} for {purpose}",
                "{S} dropped {old_tool}; {purpose} is on {tool} now",
            ),
            ("What do we use for {purpose}?", "Which tool handles {purpose}?"),
            ("In {year}, {S} used {tool} for {purpose}",),
        ),
        Kind(
            "plan_date",
            ("we", "team", "name"),
            {"date": DATES, "event": EVENTS},
            (
                "{event} is planned for {date}",
                "{event} is scheduled for {date}",
                "{S} set {event} for {date}",
                "{event} will happen on {date}",
            ),
            (
                "{event} was moved to {date}",
                "{S} pushed {event} to {date}",
                "{event} is now on {date}",
                "{event} slipped from {old_date} to {date}",
                "{event} is scheduled for {date}",
                "{event} got rescheduled to {date}",
            ),
            ("When is {event}?", "What date is {event}?"),
        ),
        Kind(
            "owner",
            ("we",),
            {"owner": OWNERS, "service": SERVICES},
            (
                "The {service} service is owned by {owner}",
                "{owner} owns the {service} service",
                "{owner} is responsible for {service}",
            ),
            (
                "{owner} took over the {service} service",
                "Ownership of {service} moved to {owner}",
                "{owner} now owns the {service} service",
                "The {service} service is owned by {owner}",
                "{old_owner} handed {service} over to {owner}",
            ),
            ("Who owns the {service} service?", "Who is responsible for {service}?"),
        ),
        Kind(
            "decision",
            PROJECT,
            {"choice": (), "topic": tuple(DECISIONS)},
            (
                "{S} decided to use {choice} for {topic}",
                "The decision for {topic} is {choice}",
                "{S} [is|am|are] going with {choice} for {topic}",
            ),
            (
                "{S} reversed the decision: {topic} will use {choice} instead of {old_choice}",
                "Change of plan: {S} [is|am|are] going with {choice} for {topic}",
                "{S} dropped {old_choice} for {topic} and picked {choice}",
                "{S} decided to use {choice} for {topic}",
            ),
            ("What did we decide for {topic}?", "What are we using for {topic}?"),
        ),
        Kind(
            "status",
            ("we",),
            {"status": STATUSES, "item": ITEMS},
            ("{item} is {status}", "The status of {item} is {status}", "{item}: {status}"),
            (
                "{item} is {status} now",
                "{item} moved to {status}",
                "{item} is {status}",
                "Update: {item} is {status}",
                "{item} went from {old_status} to {status}",
            ),
            ("What is the status of {item}?", "Where does {item} stand?"),
        ),
        Kind(
            "project_name",
            PROJECT,
            {"project": PROJECTS},
            (
                "The new app is called {project}",
                "{P} new app is named {project}",
                "{S} [calls|call] the new app {project}",
            ),
            (
                "The new app was renamed to {project}",
                "{S} renamed the app from {old_project} to {project}",
                "The new app is called {project} now",
                "{project} is the new name of the app",
            ),
            ("What is the new app called?", "What is the name of the new app?"),
            chain=False,
        ),
        Kind(
            "job_ended",
            PERSONAL,
            {"company": COMPANIES},
            ("{S} [works|work] at {company}", "{S} [has|have] a job at {company}"),
            (
                "{S} quit {P} job at {company}",
                "{S} left {company}",
                "{S} [is|am] no longer at {company}",
                "{S} was laid off from {company}",
                "{S} retired from {company} last month",
            ),
            ("Where [does|do] {S} work?", "[Does|Do] {S} still work at {company}?"),
            chain=False,
            ends="no longer employed there",
        ),
        Kind(
            "pet_ended",
            PERSONAL,
            {"pet": PETS, "pet_name": PET_NAMES},
            ("{S} [has|have] a {pet} named {pet_name}", "{S} [owns|own] a {pet} called {pet_name}"),
            (
                "{S} no longer [has|have] a {pet}",
                "{S} had to rehome {pet_name}",
                "{S} gave {pet_name} the {pet} to a neighbour",
                "{P} {pet} {pet_name} died last week",
            ),
            ("[Does|Do] {S} have a pet?", "[Does|Do] {S} still own a {pet}?"),
            chain=False,
            ends="no pet any more",
        ),
        Kind(
            "hobby_ended",
            PERSONAL,
            {"hobby": HOBBIES},
            (
                "{S} [goes|go] to {hobby} lessons every week",
                "{S} [practises|practise] {hobby} every week",
            ),
            (
                "{S} stopped {hobby} lessons",
                "{S} gave up {hobby}",
                "{S} no longer [practises|practise] {hobby}",
                "{S} [does|do] not do {hobby} any more",
            ),
            ("[Does|Do] {S} still practise {hobby}?", "[Does|Do] {S} take {hobby} lessons?"),
            chain=False,
            ends="no, stopped",
        ),
        Kind(
            "tool_ended",
            PROJECT,
            {"tool": ("Jenkins", "Heroku", "Confluence", "Sentry", "Zapier", "Trello")},
            ("{S} [uses|use] {tool}", "{S} [relies|rely] on {tool} every day"),
            (
                "{S} stopped using {tool}",
                "{S} no longer [uses|use] {tool}",
                "{S} cancelled {P} {tool} subscription",
                "{tool} was retired last sprint",
            ),
            ("Do we still use {tool}?", "Is {tool} still in use?"),
            chain=False,
            ends="no, retired",
        ),
    )


def _fill(kinds: tuple[Kind, ...]) -> tuple[Kind, ...]:
    """Kinds whose changing slot depends on another ("version" on "tool") get a joint pool."""
    out = []
    for kind in kinds:
        vary = next(iter(kind.pools))
        if kind.pools[vary]:
            out.append(kind)
            continue
        out.append(Dependent(**{f: getattr(kind, f) for f in kind.__dataclass_fields__}))
    return tuple(out)


UPDATES: tuple[Kind, ...] = _fill(_kinds())
LATE_KINDS = (
    "residence", "employer", "job_title", "partner", "favourite", "diet", "address", "car",
    "tool_version", "tool_choice",
)  # fmt: skip
