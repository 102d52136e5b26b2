"""Narrow kinds of value a subject normally has one of at a time, and the names of each.

"We track work in Jira" and "Tickets live in Linear these days" share no attribute word, but
Jira and Linear are both issue trackers, and a team tracks its tickets in one. This module is
the lexicon behind that reading (:mod:`memex_rules.supersession_kinds` is the rule): for each
kind, the words that name what it is for (its *roles*: "tickets", "issues", "bugs") and the
product names that are members of it, with their common short forms.

Only kinds where a new member normally *replaces* the old one are here: a code host, a CI, a
phone carrier, an energy supplier. Kinds a subject holds several of at once (video streaming,
airlines, supermarkets, a person's programming languages) are left out; a service's language
is here only with a frame that says so ("written in").

How the table reads:

- members are separated by ``;``; the aliases of one member by `` = `` (the first is its
  name);
- a member ending in ``!`` is also a common word ("Linear", "Sketch", "Chase"), so it counts
  only when written with a capital;
- ``Make: model, model`` (cars) or ``Family > member`` makes a member one of a family: a
  Toyota and a Yaris are not two values ("I drive a Toyota" / "I drive a Yaris now"), a Yaris
  and a Corolla are;
- kinds marked ``models`` read a model number after the name ("iPhone 12", "Galaxy S23"), so
  an iPhone 12 and an iPhone 15 are two values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memex_rules.rules_text import word_set

#: kind: (its role words, its members). Role words include every word of a role phrase
#: ("error tracking" -> error, tracking).
_KINDS: dict[str, tuple[str, str]] = {
    "cloud hosting": (
        "cloud hosting host hosted hosts infra infrastructure servers server provider deploy "
        "deploys deployed",
        "AWS = Amazon Web Services; GCP = Google Cloud = Google Cloud Platform; "
        "Azure = Microsoft Azure; Heroku; DigitalOcean = Digital Ocean; Linode; Vultr; Hetzner; "
        "OVH = OVHcloud; Fly.io; Render!; Railway!; Vercel; Netlify; Oracle Cloud; IBM Cloud; "
        "Scaleway; UpCloud",
    ),
    "code host": (
        "repo repos repository repositories code codebase source git monorepo",
        "GitHub; GitLab; Bitbucket; Gitea; Codeberg; SourceHut; AWS CodeCommit = CodeCommit",
    ),
    "container registry": (
        "images image containers container registry",
        "Docker Hub = DockerHub; GHCR; Quay = Quay.io; ECR; GCR; Artifact Registry",
    ),
    "issue tracker": (
        "ticket tickets issue issues bug bugs task tasks work backlog tracker tracking",
        "Jira; Linear!; Trello; Asana; ClickUp; YouTrack; GitHub Issues; GitLab Issues; "
        "Shortcut! = Clubhouse!; Pivotal Tracker; Monday.com; Basecamp; Redmine; Bugzilla; "
        "Azure Boards",
    ),
    "ci": (
        "ci builds build pipeline pipelines continuous integration tests",
        "Jenkins; CircleCI = Circle CI; GitHub Actions = GH Actions; GitLab CI = GitLab CI/CD; "
        "Travis = Travis CI; Buildkite; TeamCity; Bamboo!; Drone CI; Azure Pipelines; "
        "CodeBuild = AWS CodeBuild; Semaphore!; Bitbucket Pipelines",
    ),
    "cdn": ("cdn edge", "Cloudflare; Fastly; Akamai; CloudFront; Bunny.net = BunnyCDN; KeyCDN"),
    "error tracking": (
        "error errors tracking exception exceptions crash crashes reporting",
        "Sentry; Rollbar; Bugsnag; Honeybadger; Airbrake; Raygun; Crashlytics",
    ),
    "logging": (
        "log logs logging",
        "ELK = ELK stack = Elastic stack = Kibana = Logstash; Splunk; Papertrail; Loggly; "
        "Graylog; Sumo Logic = SumoLogic; Grafana Loki = Loki; Datadog; New Relic; "
        "CloudWatch = CloudWatch Logs; Stackdriver; Logz.io; Better Stack = Logtail",
    ),
    "monitoring": (
        "metrics monitoring observability apm",
        "Datadog; New Relic; Prometheus; Grafana Cloud; Dynatrace; AppDynamics; Nagios; "
        "Zabbix; Honeycomb; CloudWatch; Stackdriver; SigNoz; Lightstep",
    ),
    "paging": (
        "paging pages page on-call oncall alerting alerts",
        "PagerDuty; Opsgenie; VictorOps = Splunk On-Call; incident.io; FireHydrant; Rootly; "
        "Grafana OnCall; Squadcast",
    ),
    "team chat": (
        "chat messaging comms communication",
        "Slack; Microsoft Teams = MS Teams; Discord; Mattermost; Rocket.Chat; Google Chat; "
        "Zulip; HipChat",
    ),
    "video calls": (
        "calls call video meetings conferencing",
        "Zoom!; Google Meet = Hangouts; Webex; Whereby; Skype; GoToMeeting; Jitsi",
    ),
    "email": (
        "email e-mail mail inbox",
        "Gmail; Outlook = Hotmail = Outlook.com; ProtonMail = Proton Mail; Fastmail; "
        "iCloud Mail; Yahoo Mail = Yahoo; Zoho Mail; Tutanota = Tuta",
    ),
    "transactional email": (
        "email emails transactional",
        "Postmark; SendGrid; Mailgun; Amazon SES; Mailjet; SparkPost; Resend!",
    ),
    "feature flags": (
        "feature flags flag flagging toggles",
        "LaunchDarkly; Unleash; Flagsmith; Split.io; ConfigCat; GrowthBook; Flipt",
    ),
    "password manager": (
        "password passwords manager logins vault",
        "LastPass; 1Password; Bitwarden; Dashlane; KeePass = KeePassXC; NordPass; Keeper!; "
        "Proton Pass; iCloud Keychain; RoboForm",
    ),
    "editor": (
        "editor ide code coding programming",
        "Vim; Neovim = nvim; Emacs; VS Code = VSCode = Visual Studio Code; "
        "Sublime = Sublime Text; IntelliJ = IntelliJ IDEA; PyCharm; WebStorm; GoLand; CLion; "
        "Atom!; Cursor!; Zed!; Helix!; Notepad++; Xcode; Android Studio; Eclipse!; NetBeans; "
        "BBEdit; TextMate; Kakoune",
    ),
    "os": (
        "os operating system distro",
        "Windows!; macOS = Mac OS = OS X = OSX; Linux; Linux > Ubuntu; Linux > Fedora; "
        "Linux > Arch Linux = Arch!; Linux > Debian; Linux > Linux Mint = Mint!; "
        "Linux > Manjaro; Linux > Pop!_OS = PopOS = Pop OS; ChromeOS = Chrome OS; "
        "Linux > NixOS; FreeBSD",
    ),
    "phone": (
        "phone phones smartphone handset mobile",
        "iPhone; iPhone > iOS; Android!; Android > Pixel! = Google Pixel; "
        "Android > Galaxy! = Samsung Galaxy = Samsung; Android > OnePlus; Android > Xiaomi; "
        "Android > Motorola = Moto!; Nokia; Android > Xperia = Sony Xperia; Android > Huawei; "
        "Android > Oppo; Android > Nothing Phone; Fairphone",
    ),
    "phone carrier": (
        "mobile network carrier contract sim number plan tariff data",
        "Vodafone; EE!; O2; Three Mobile; giffgaff; Tesco Mobile; Sky Mobile; Virgin Mobile; "
        "Lebara; Lycamobile = Lyca; Smarty!; VOXI; iD Mobile; BT Mobile; Verizon; AT&T; "
        "T-Mobile; Mint Mobile; Google Fi; Telstra; Optus",
    ),
    "broadband": (
        "broadband internet fibre fiber wifi wi-fi isp connection",
        "BT!; Virgin Media; Sky Broadband; TalkTalk; Plusnet; Community Fibre; Hyperoptic; "
        "Vodafone; Zen Internet; Now Broadband; Comcast = Xfinity; Verizon Fios = Fios; "
        "Starlink; Cox!",
    ),
    "bank": (
        "bank banking account accounts salary debit",
        "Barclays; HSBC; Lloyds; NatWest; Santander; Nationwide; Halifax; TSB; Monzo; "
        "Starling; Revolut; Chase!; First Direct; Metro Bank; Co-op Bank; Virgin Money; RBS; "
        "Bank of America; Wells Fargo; Citibank = Citi; Capital One; N26; bunq",
    ),
    "energy supplier": (
        "energy supplier power tariff fuel",
        "Octopus! = Octopus Energy; Bulb!; British Gas; EDF = EDF Energy; E.ON = EON = "
        "E.ON Next; OVO = OVO Energy; Scottish Power = ScottishPower; SSE; So Energy; "
        "Shell Energy; Good Energy; Ecotricity; Utility Warehouse",
    ),
    "insurer": (
        "insurance insurer insured cover policy renewal",
        "Admiral; Aviva; Direct Line; LV= = LV = Liverpool Victoria; Churchill!; "
        "Hastings Direct = Hastings!; AXA; Allianz; More Than; esure; Sheilas Wheels; GEICO; "
        "State Farm; Allstate; Ageas; NFU Mutual",
    ),
    "music streaming": (
        "music streaming stream playlists listen",
        "Spotify; Apple Music; Tidal!; Deezer; YouTube Music; Amazon Music; Qobuz",
    ),
    "gym": (
        "gym membership member",
        "PureGym = Pure Gym; The Gym Group = Gym Group; Virgin Active; David Lloyd; "
        "Nuffield Health; Anytime Fitness; Planet Fitness; Equinox!; 24 Hour Fitness; "
        "Gold's Gym; Third Space; Everyone Active; Snap Fitness; Fitness First; LA Fitness; "
        "Gymbox; Bannatyne = Bannatynes",
    ),
    "browser": (
        "browser browsers",
        "Chrome! = Google Chrome; Firefox; Safari!; Edge! = Microsoft Edge; Brave!; Opera!; "
        "Arc! = Arc browser; Vivaldi; Chromium; Orion!",
    ),
    "notes": (
        "notes note note-taking notebook notebooks journal pkm",
        "Notion; Obsidian; Evernote; OneNote; Bear!; Roam = Roam Research; Logseq; "
        "Apple Notes; Google Keep; Joplin; Simplenote; Tana!",
    ),
    "wiki": (
        "wiki docs documentation knowledge",
        "Confluence; Notion; GitBook; Slab!; Guru!; Slite",
    ),
    "design tool": (
        "design designs designers designer mockups mocks prototypes wireframes ui",
        "Figma; Sketch!; Adobe XD; InVision; Framer!; Penpot; Axure; Balsamiq",
    ),
    "photo backup": (
        "photos photo pictures pics library",
        "Google Photos; iCloud = iCloud Photos; Amazon Photos; Synology; Dropbox; OneDrive; "
        "pCloud; Ente",
    ),
    "file storage": (
        "files file documents storage drive",
        "Dropbox; OneDrive; Google Drive; iCloud = iCloud Drive; Box!; pCloud; Sync.com",
    ),
    "language": (
        "language languages codebase code",
        "Python; JavaScript; TypeScript; Java!; Go! = Golang; Rust!; Ruby!; PHP; Kotlin; "
        "Swift!; C#; C++; Scala; Elixir; Haskell; Clojure; Erlang; Dart!; Perl; Lua; OCaml",
    ),
    "frontend framework": (
        "frontend front-end ui framework",
        "React; Vue! = Vue.js; Angular; Svelte; Ember! = Ember.js; React > Next.js = NextJS; "
        "Vue > Nuxt; Svelte > SvelteKit; React > Remix!; React > Gatsby; SolidJS",
    ),
    "backend framework": (
        "backend back-end api framework",
        "Django; Flask!; FastAPI; Rails = Ruby on Rails; Laravel; Spring Boot; Express.js; "
        "NestJS; Phoenix!; ASP.NET; Symfony",
    ),
    "database": (
        "database databases db datastore",
        "Postgres = PostgreSQL; MySQL; MariaDB; SQLite; MongoDB = Mongo; DynamoDB; "
        "Cassandra; CockroachDB; Oracle!; SQL Server = MSSQL; Firestore; PlanetScale",
    ),
    "data warehouse": (
        "warehouse analytics",
        "Snowflake!; BigQuery; Redshift; Databricks; ClickHouse",
    ),
    "js package manager": (
        "package packages manager dependencies deps installs",
        "npm; Yarn!; pnpm; Bun!",
    ),
    "python package manager": (
        "package packages manager dependencies deps installs environments",
        "pip; Poetry!; Pipenv; uv; Conda; PDM; Rye!",
    ),
    "laptop": (
        "laptop laptops machine computer notebook",
        "MacBook; MacBook > MacBook Pro; MacBook > MacBook Air; ThinkPad; XPS = Dell XPS; "
        "Surface! > Surface Laptop; Framework!; Chromebook; Pixelbook; ZenBook; Razer Blade",
    ),
    "tablet": (
        "tablet tablets",
        "iPad; iPad > iPad Pro; iPad > iPad Air; iPad > iPad mini; Galaxy Tab",
    ),
    "watch": (
        "watch smartwatch wearable",
        "Apple Watch; Garmin; Garmin > Forerunner; Garmin > Fenix; Fitbit; Pixel Watch; "
        "Galaxy Watch; Whoop!; Oura = Oura Ring",
    ),
    "e-reader": ("e-reader ereader reader", "Kindle; Kobo"),
    "payment card": ("card cards credit", "Amex = American Express; Curve!; Barclaycard"),
    "investments": (
        "investments investing invest portfolio",
        "Vanguard; Hargreaves Lansdown; AJ Bell; Trading 212; Freetrade; Nutmeg; Moneybox; "
        "Fidelity; Interactive Brokers; eToro; InvestEngine",
    ),
    "meal kit": ("meal meals kit recipe box", "HelloFresh; Gousto; Mindful Chef; Green Chef"),
    "vpn": ("vpn", "NordVPN; ExpressVPN; Mullvad; ProtonVPN = Proton VPN; Surfshark; Tailscale"),
    "todo app": (
        "todo to-do todos lists reminders",
        "Todoist; Things!; TickTick; Microsoft To Do; OmniFocus; Any.do",
    ),
    "payment provider": (
        "payments payment checkout billing processor",
        "Stripe; Adyen; Braintree; PayPal; GoCardless; Paddle!; Checkout.com; Mollie; Worldpay",
    ),
    "crm": ("crm sales leads contacts", "Salesforce; HubSpot; Pipedrive; Zoho CRM; Attio"),
    "support desk": (
        "support helpdesk help desk customer",
        "Zendesk; Intercom; Freshdesk; Help Scout; Gorgias",
    ),
    "product analytics": (
        "analytics events funnels",
        "Google Analytics = GA4; Mixpanel; Amplitude; PostHog; Plausible; Heap!; Matomo",
    ),
    "auth": (
        "auth authentication login logins sso identity",
        "Auth0; Okta; Cognito = AWS Cognito; Clerk!; Firebase Auth; Keycloak; WorkOS",
    ),
    "infrastructure as code": (
        "iac provisioning infra infrastructure",
        "Terraform; Pulumi; CloudFormation; AWS CDK; OpenTofu",
    ),
    "orchestration": (
        "orchestration cluster clusters containers workloads",
        "Kubernetes = k8s; Kubernetes > EKS; Kubernetes > GKE; Kubernetes > AKS; ECS = Fargate; "
        "Nomad!; Docker Swarm",
    ),
    "bundler": ("bundler bundling bundle", "webpack; Vite!; Rollup!; Parcel!; esbuild; Turbopack"),
    "unit tests": ("tests test testing unit runner", "Jest; Vitest; Mocha!; Jasmine!; pytest"),
    "browser tests": (
        "e2e end-to-end browser tests test testing",
        "Cypress; Playwright; Selenium; Puppeteer",
    ),
    "orm": ("orm", "Prisma; TypeORM; Sequelize; Drizzle!; SQLAlchemy"),
    "message queue": (
        "queue queues broker events messages",
        "Kafka; RabbitMQ; SQS = Amazon SQS; Google Pub/Sub = Pub/Sub; NATS",
    ),
    "search": (
        "search indexing",
        "Elasticsearch; OpenSearch; Algolia; Meilisearch; Typesense; Solr",
    ),
    "cache": ("cache caching", "Redis; Memcached; Valkey"),
    "website": ("website site blog", "WordPress; Squarespace; Wix; Webflow; Ghost!"),
    "newsletter": (
        "newsletter mailing list subscribers",
        "Mailchimp; ConvertKit; Substack; Buttondown; Beehiiv",
    ),
    "accounting": (
        "accounting books bookkeeping invoices invoicing",
        "Xero; QuickBooks; FreeAgent; Sage!",
    ),
    "hr": ("hr people", "BambooHR; Personio; HiBob; Workday; Rippling"),
    "time tracking": ("timesheets hours timekeeping", "Toggl; Harvest!; Clockify"),
    # a diet and a singing voice are said as words: read only where one ends its phrase
    "diet": (
        "diet eat eating",
        "vegetarian = veggie; vegan = plant-based; pescatarian; flexitarian; omnivore",
    ),
    "voice part": (
        "sing sings singing voice part choir",
        "soprano; mezzo = mezzo-soprano; alto; contralto; tenor; baritone",
    ),
}
#: Kinds whose members are words that also describe things ("vegan curry", "tenor sax"):
#: a member counts only when no noun follows it.
_ALONE = word_set("diet voice")
_AFTER_ALONE = word_set(
    "now again these this since from in at for and but so too full fully most mostly on by "
    "with nowadays anymore then one person part"
)

#: Car makes and their models: one kind, "car"; a model is of its make's family.
_CARS = {
    "Ford": "Fiesta! Focus! Kuga Puma! Mondeo Mustang! S-Max Mach-E",
    "Toyota": "Yaris Corolla Prius RAV4 Camry Aygo C-HR Auris Hilux bZ4X",
    "Honda": "Civic Jazz! Accord CR-V HR-V Fit!",
    "Nissan": "Leaf! Qashqai Micra Juke! Ariya",
    "Kia": "Niro Sportage Ceed Picanto EV6 Sorento",
    "Hyundai": "Kona Tucson i10 i20 i30 Ioniq Santa-Fe",
    "Vauxhall = Opel": "Corsa Astra Mokka Insignia Zafira",
    "Volkswagen = VW": "Golf! Polo! Passat Tiguan ID.3 ID.4 Touran Beetle! T-Roc",
    "Skoda": "Octavia Fabia Enyaq Superb! Kodiaq Karoq",
    "SEAT": "Ibiza Ateca Arona",
    "Cupra": "Formentor",
    "Renault": "Clio Megane Captur Kadjar",
    "Peugeot": "208 308 2008 3008 5008",
    "Citroen = Citroën": "C3 C4 Berlingo",
    "Fiat": "500 Panda! Punto",
    "BMW": "i3 i4 X1 X3 X5 M3",
    "Audi": "A1 A3 A4 A6 Q3 Q5 e-tron",
    "Mercedes = Mercedes-Benz = Merc": "A-Class C-Class E-Class GLA EQA",
    "Volvo": "XC40 XC60 XC90 V60 V90 V40",
    "Mazda": "MX-5 CX-5 CX-30 Mazda3 Mazda2",
    "Subaru": "Outback! Forester Impreza",
    "Tesla": "Model-3 Model-Y Model-S Model-X",
    "MG": "MG4 MG5 ZS",
    "Polestar": "Polestar-2",
    "Dacia": "Sandero Duster Jogger",
    "Land Rover": "Defender! Discovery! Evoque",
    "Range Rover": "",
    "Jaguar": "I-Pace",
    "Porsche": "Taycan Macan Cayenne",
    "Lexus": "",
    "Suzuki": "Swift! Vitara",
    "Mini!": "Cooper!",
    "Jeep": "Wrangler Cherokee",
    "Chevrolet = Chevy": "Bolt! Volt! Malibu",
    "BYD": "Atto Dolphin! Seal!",
}
_CAR_ROLES = "car cars motor vehicle"

#: Kinds whose members carry a model number ("iPhone 12", "Galaxy S23", "Golf 8").
MODELS = word_set("phone car laptop tablet watch")
#: A language is one value of a service only where a fact says what it is written in.
FRAMED = {
    "language": re.compile(
        r"(?i)\b(?:written|rewritten|rewrote|re-?wrote|implemented|coded|ported|converted|"
        r"rewriting|rewrite)\b"
    )
}


@dataclass(frozen=True)
class Member:
    """A member of a kind named in a text: its name, family, kinds and where it stands."""

    name: str
    family: str
    kinds: frozenset[str]
    start: int  # token index
    end: int  # token index after its last token
    root: str = ""  # the family's family ("Pixel 7" -> "Pixel" -> "Android")

    def related(self, other: Member) -> bool:
        """The same value, or one of the family of the other ("Toyota" / "Yaris", "Android" /
        "Pixel 7")."""
        one, two = (self.family, self.root), (other.family, other.root)
        return self.name == other.name or other.name in one or self.name in two


#: (lower-case tokens) -> [(name, family, kind, capitalised only)]
_INDEX: dict[tuple[str, ...], list[tuple[str, str, str, bool]]] = {}
#: Role word -> the kinds it is a role of.
ROLES: dict[str, frozenset[str]] = {}
_TOKEN = re.compile(r"[A-Za-z0-9£$€#][\w.+#&=/'@!-]*")
#: A chat channel ("#inc-room"): a member of the kind "channel" by its shape.
_CHANNEL = re.compile(r"^#[a-z][\w-]+$")
_CHANNEL_ROLES = "channel channels incident incidents chatter announcements discussion"


def tokens(text: str) -> list[str]:
    """The words of ``text`` as the lexicon reads them, case kept ("LV=", "E.ON", "car's")."""
    out = []
    for match in _TOKEN.finditer(text):
        word = match.group(0).rstrip(".,;:!?'\"")
        if word.endswith("=") and len(word) < 3:
            word = word.rstrip("=")
        if word:
            out.append(word)
    return out


def _add(spec: str, kind: str, family: str = "") -> None:
    spec = spec.strip()
    if ">" in spec:
        family, _, spec = (part.strip() for part in spec.partition(">"))
        family = _name(family)
    aliases = [alias.strip() for alias in spec.split(" = ") if alias.strip()]
    name = _name(aliases[0])
    for alias in aliases:
        capital = alias.endswith("!")
        written = alias.rstrip("!").lower()
        entry = (name, family, kind, capital)
        _INDEX.setdefault(tuple(_word(w) for w in written.split()), []).append(entry)
        if written.startswith(("model-", "polestar-", "santa-")):  # also "Model 3"
            _INDEX.setdefault(tuple(written.split("-")), []).append(entry)


def _name(alias: str) -> str:
    return alias.strip().rstrip("!").lower()


def _word(word: str) -> str:
    """A word as the index keys it: lower case, without a possessive ("Gold's")."""
    return word.lower().removesuffix("'s")


for _kind, (_roles, _members) in _KINDS.items():
    for _spec in _members.split(";"):
        _add(_spec, _kind)
    for _role in _roles.split():
        ROLES[_role] = ROLES.get(_role, frozenset()) | {_kind}
for _make, _models in _CARS.items():
    _add(_make, "car")
    _maker = _name(_make.split("=")[0])
    for _model in _models.split():
        _add(_model, "car", _maker)
for _role in _CAR_ROLES.split():
    ROLES[_role] = ROLES.get(_role, frozenset()) | {"car"}
for _role in _CHANNEL_ROLES.split():
    ROLES[_role] = ROLES.get(_role, frozenset()) | {"channel"}
_LONGEST = max(len(key) for key in _INDEX)
#: The first word of every name: a text with none of them names no member.
_FIRST = frozenset(key[0] for key in _INDEX)
_ROUGH = re.compile(r"[\w.+#&=/'@!-]+")


def may_name(text: str) -> bool:
    """A quick test before :func:`members`: whether ``text`` has a name's first word (or a
    channel's "#")."""
    if "#" in text:
        return True
    return any(_word(w.strip(".,;:!?'\"")) in _FIRST for w in _ROUGH.findall(text))


_MODEL_NUMBER = re.compile(r"(?i)^[a-z]?\d{1,4}[a-z]?$|^(?:pro|max|plus|mini|ultra|se)$")


@lru_cache(maxsize=8192)
def members(text: str) -> tuple[Member, ...]:
    """The members of any kind ``text`` names, longest name first at each place ("GitHub
    Actions" is a CI, not GitHub and a word)."""
    words = tokens(text)
    low = [_word(word) for word in words]
    found: list[Member] = []
    at = 0
    while at < len(words):
        if _CHANNEL.match(low[at]):
            found.append(Member(low[at], "", frozenset({"channel"}), at, at + 1))
        for size in range(min(_LONGEST, len(words) - at), 0, -1):
            entries = _INDEX.get(tuple(low[at : at + size]))
            if not entries or "@" in words[at]:
                continue
            fits = [
                e
                for e in entries
                if (not e[3] or words[at][:1].isupper())
                and (
                    e[2].split()[0] not in _ALONE
                    or at + size == len(words)
                    or low[at + size] in _AFTER_ALONE
                )
            ]
            if not fits:
                continue
            name, family = fits[0][0], fits[0][1]
            kinds = frozenset(e[2] for e in fits if e[0] == name)
            end = at + size
            root = ""
            if kinds & MODELS and end < len(words) and _MODEL_NUMBER.match(low[end]):
                name, family, root, end = f"{name} {low[end]}", name, family, end + 1
            if found and found[-1].end == at and found[-1].name == family:
                at = found.pop().start  # "Ford Fiesta": one car, the model of its make
            found.append(Member(name, family, kinds, at, end, root))
            at = end - 1
            break
        at += 1
    return tuple(found)


def is_role(word: str) -> bool:
    """Whether ``word`` names what some kind is for ("tickets", "logs", "broadband")."""
    return word in ROLES
