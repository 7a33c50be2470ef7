"""The schema of a store: its migrations, and the checks that a file is a bmn store this code
can read before anything is written to it.

PRAGMA application_id marks a bmn store; PRAGMA user_version counts the migrations that have
run. A file that is not SQLite, another program's database, a newer schema or a damaged file is
refused with StoreError and left untouched.
"""

from __future__ import annotations

import sqlite3
from functools import cache
from pathlib import Path

from bmn.records.store.errors import StoreError

# PRAGMA application_id of every bmn store: b"bmn1" read as a big-endian integer.
APPLICATION_ID = int.from_bytes(b"bmn1", "big")
SQLITE_MAGIC = b"SQLite format 3\x00"
TABLES = ("runs", "finds", "checkpoints")

# The kinds of run (bmn.search.runs.registry) that have no strategy: --strategy every selects a
# kind, and a loop hunt or a grow run has none.
_NO_STRATEGY = "('loop-hunt', 'grow', 'every', 'every-cuda')"

# The loops table's columns before migration 8, each copied as it is.
_LOOPS_7 = (
    "id, key, rotation_key, deck, period_cards, period_tricks, cycle_states, balanced_states,"
    " balanced_reachable, balanced_deals, mirrored_balanced_deals, basin_states,"
    " basin_complete, example_deal, first_deal, run_id, found_at, times_seen"
)

# Ordered migrations: PRAGMA user_version counts how many have run. Each is a list of
# statements run one by one inside a single transaction (executescript would commit early).
# Never edit a released migration; append a new one.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            started_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            strategy TEXT NOT NULL,
            objective TEXT NOT NULL CHECK (objective IN ('cards', 'tricks', 'loop')),
            seed INTEGER NOT NULL,
            params TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'stopped', 'finished', 'interrupted')),
            games INTEGER NOT NULL DEFAULT 0,
            seconds REAL NOT NULL DEFAULT 0,
            best_deal TEXT,
            best_cards INTEGER,
            best_tricks INTEGER
        )""",
        """CREATE TABLE finds (
            id INTEGER PRIMARY KEY,
            deal TEXT NOT NULL,
            cards INTEGER NOT NULL,
            tricks INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('finished', 'loop')),
            run_id INTEGER NOT NULL REFERENCES runs (id),
            strategy TEXT NOT NULL,
            found_at TEXT NOT NULL,
            elapsed REAL NOT NULL,
            UNIQUE (deal, run_id)
        )""",
        "CREATE INDEX finds_by_cards ON finds (cards DESC, tricks DESC)",
        "CREATE INDEX finds_by_tricks ON finds (tricks DESC, cards DESC)",
        "CREATE INDEX finds_by_run ON finds (run_id, elapsed)",
        """CREATE TABLE checkpoints (
            run_id INTEGER NOT NULL REFERENCES runs (id),
            worker INTEGER NOT NULL,
            saved_at TEXT NOT NULL,
            state BLOB NOT NULL,
            games INTEGER NOT NULL,
            seconds REAL NOT NULL,
            PRIMARY KEY (run_id, worker)
        )""",
    ),
    (  # 2: the cycles of non-terminating games, one row per canonical cycle key
        """CREATE TABLE loops (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            rotation_key TEXT NOT NULL,
            deck TEXT NOT NULL,
            period_cards INTEGER NOT NULL,
            period_tricks INTEGER NOT NULL,
            cycle_states INTEGER NOT NULL,
            balanced_states INTEGER NOT NULL,
            balanced_reachable INTEGER,
            balanced_deals INTEGER NOT NULL,
            mirrored_balanced_deals INTEGER NOT NULL,
            basin_states INTEGER NOT NULL,
            basin_complete INTEGER NOT NULL,
            example_deal TEXT NOT NULL,
            first_deal TEXT NOT NULL,
            run_id INTEGER NOT NULL REFERENCES runs (id),
            found_at TEXT NOT NULL,
            times_seen INTEGER NOT NULL DEFAULT 1
        )""",
    ),
    (  # 3: seats per run and find, where a run ran, and who holds a run (a lease)
        "ALTER TABLE runs ADD COLUMN seats INTEGER NOT NULL DEFAULT 2",
        "ALTER TABLE runs ADD COLUMN backend TEXT NOT NULL DEFAULT 'threads'",
        "ALTER TABLE runs ADD COLUMN holder TEXT",
        "ALTER TABLE runs ADD COLUMN heartbeat_at REAL",
        # Derived from the deal text (hands joined by '/'), so it can never disagree with it.
        "ALTER TABLE finds ADD COLUMN seats INTEGER GENERATED ALWAYS AS"
        " (length(deal) - length(replace(deal, '/', '')) + 1) VIRTUAL",
        "CREATE INDEX finds_by_seats ON finds (seats, cards DESC, tricks DESC)",
    ),
    (  # 4: short finished finds of a search, packed a chunk's to a row (bmn.records.store.bulk)
        # Released inside bulk.py: its text stays as written there, byte for byte.
        """CREATE TABLE find_batches (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs (id),
        stream INTEGER NOT NULL,
        first_game INTEGER NOT NULL,
        sizes TEXT NOT NULL,
        seats INTEGER NOT NULL,
        strategy TEXT NOT NULL,
        found_at TEXT NOT NULL,
        elapsed REAL NOT NULL,
        count INTEGER NOT NULL,
        best_cards INTEGER NOT NULL,
        best_tricks INTEGER NOT NULL,
        figures BLOB NOT NULL,
        decks BLOB NOT NULL,
        UNIQUE (run_id, stream, first_game)
    )""",
        "CREATE INDEX find_batches_by_cards ON find_batches (best_cards DESC)",
        "CREATE INDEX find_batches_by_tricks ON find_batches (best_tricks DESC)",
    ),
    (  # 5: the kind of run (bmn.search.runs.registry), inferred for older runs as bmn did before
        "ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'longest'",
        "UPDATE runs SET kind = CASE"
        " WHEN strategy = 'grow' THEN 'grow'"
        " WHEN params LIKE '%\"device\": \"cuda\"%' THEN 'longest-cuda'"
        " WHEN objective = 'loop' THEN 'loop-hunt'"
        " ELSE 'longest' END",
    ),
    (  # 6: a run's strategy only where its kind has one, a grow run's objective its own, and
        # neither kept in the settings of a kind that has none; the rule set a run plays
        # (kernels/rules/sets.py), bmn's for every run before. SQLite cannot drop NOT NULL in
        # place: the table is copied (upgrade runs with foreign keys off, as SQLite asks).
        """CREATE TABLE runs_6 (
            id INTEGER PRIMARY KEY,
            started_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            strategy TEXT,
            objective TEXT NOT NULL CHECK (objective IN ('cards', 'tricks', 'loop', 'grow')),
            seed INTEGER NOT NULL,
            params TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'stopped', 'finished', 'interrupted')),
            games INTEGER NOT NULL DEFAULT 0,
            seconds REAL NOT NULL DEFAULT 0,
            best_deal TEXT,
            best_cards INTEGER,
            best_tricks INTEGER,
            seats INTEGER NOT NULL DEFAULT 2,
            backend TEXT NOT NULL DEFAULT 'threads',
            holder TEXT,
            heartbeat_at REAL,
            kind TEXT NOT NULL DEFAULT 'longest',
            rules TEXT NOT NULL DEFAULT 'bmn'
        )""",
        "INSERT INTO runs_6 SELECT id, started_at, updated_at,"
        f" CASE WHEN kind IN {_NO_STRATEGY} THEN NULL ELSE strategy END,"
        " CASE WHEN kind = 'grow' THEN 'grow' ELSE objective END,"
        " seed,"
        f" CASE WHEN kind IN {_NO_STRATEGY} AND json_valid(params) AND params LIKE '{{%'"
        " THEN json_remove(params, '$.strategy',"
        " CASE WHEN kind IN ('loop-hunt', 'grow') THEN '$.objective' ELSE '$.strategy' END)"
        " ELSE params END,"
        " status, games, seconds, best_deal, best_cards, best_tricks, seats, backend, holder,"
        " heartbeat_at, kind, 'bmn' FROM runs",
        "DROP TABLE runs",
        "ALTER TABLE runs_6 RENAME TO runs",
    ),
    (  # 7: where a run ran (its host) and, for a run merged in from another store (`records
        # merge`), that store and the run's number there; NULL for a run made here before.
        "ALTER TABLE runs ADD COLUMN host TEXT",
        "ALTER TABLE runs ADD COLUMN origin_store TEXT",
        "ALTER TABLE runs ADD COLUMN origin_run INTEGER",
    ),
    (  # 8: the rule set a cycle was found under (kernels/rules/sets.py), bmn's for every cycle
        # before: one row per cycle key and rule set, the same key under two rule sets being
        # two games. SQLite cannot drop a UNIQUE in place: the table is copied, as in 6.
        """CREATE TABLE loops_8 (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL,
            rotation_key TEXT NOT NULL,
            deck TEXT NOT NULL,
            period_cards INTEGER NOT NULL,
            period_tricks INTEGER NOT NULL,
            cycle_states INTEGER NOT NULL,
            balanced_states INTEGER NOT NULL,
            balanced_reachable INTEGER,
            balanced_deals INTEGER NOT NULL,
            mirrored_balanced_deals INTEGER NOT NULL,
            basin_states INTEGER NOT NULL,
            basin_complete INTEGER NOT NULL,
            example_deal TEXT NOT NULL,
            first_deal TEXT NOT NULL,
            run_id INTEGER NOT NULL REFERENCES runs (id),
            found_at TEXT NOT NULL,
            times_seen INTEGER NOT NULL DEFAULT 1,
            rules TEXT NOT NULL DEFAULT 'bmn',
            UNIQUE (key, rules)
        )""",
        f"INSERT INTO loops_8 ({_LOOPS_7}, rules) SELECT {_LOOPS_7}, 'bmn' FROM loops",
        "DROP TABLE loops",
        "ALTER TABLE loops_8 RENAME TO loops",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


def check_header(path: Path) -> None:
    """Refuse, before SQLite touches it, a file that is not an SQLite database at all."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        return
    except OSError as err:
        raise StoreError(f"cannot read record store {path}: {err.strerror}") from err
    if head and head != SQLITE_MAGIC:
        raise StoreError(f"{path} is not an SQLite database (nor a bmn record store)")


def version(db: sqlite3.Connection) -> int:
    """The schema version of a store: how many migrations have run."""
    return db.execute("PRAGMA user_version").fetchone()[0]


def check_identity(db: sqlite3.Connection, path: Path) -> bool:
    """Raise StoreError unless this is a bmn store this code can read; True if empty."""
    if db.in_transaction:
        return _identity(db, path)
    db.execute("BEGIN")  # one read snapshot, even while another process creates it
    try:
        return _identity(db, path)
    finally:
        if db.in_transaction:
            db.execute("ROLLBACK")  # it only read


def _identity(db: sqlite3.Connection, path: Path) -> bool:
    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    schema_version = version(db)
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    if app_id == 0 and schema_version == 0 and not tables:
        return True
    if app_id != APPLICATION_ID:
        names = ", ".join(sorted(tables)) or "none"
        raise StoreError(
            f"{path} is an SQLite database but not a bmn record store"
            f" (application_id {app_id}, tables: {names}); it was left as it is"
        )
    if schema_version > SCHEMA_VERSION:
        raise StoreError(
            f"record store {path} has schema version {schema_version}, newer than this bmn"
            f" understands ({SCHEMA_VERSION}); upgrade bmn to read it"
        )
    mismatch = _mismatch(db, schema_version)
    if mismatch:
        raise StoreError(
            f"record store {path} is damaged or of an unknown version: it says schema version"
            f" {schema_version}, but {mismatch}; it was left as it is"
        )
    # A page-level scan (about 0.1 s for 200,000 finds) catches a truncated or scrambled
    # file before anything is written to it.
    problems = [row[0] for row in db.execute("PRAGMA quick_check(3)")]
    if problems != ["ok"]:
        raise StoreError(
            f"record store {path} is damaged ({'; '.join(problems)}); it was left as it is"
        )
    return False


def shapes() -> tuple[dict[str, frozenset[str]], ...]:
    """The tables of a bmn store and their columns after each number of migrations:
    shapes()[v] is what a store of schema version v holds."""
    return _shapes(MIGRATIONS)


@cache
def _shapes(migrations: tuple[tuple[str, ...], ...]) -> tuple[dict[str, frozenset[str]], ...]:
    """Built once, by running the migrations in memory."""
    db = sqlite3.connect(":memory:")
    try:
        built = [_shape(db)]
        for statements in migrations:
            for statement in statements:
                db.execute(statement)
            built.append(_shape(db))
    finally:
        db.close()
    return tuple(built)


def _shape(db: sqlite3.Connection) -> dict[str, frozenset[str]]:
    names = [row[0] for row in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")]
    return {name: _columns(db, name) for name in names}


def _columns(db: sqlite3.Connection, table: str) -> frozenset[str]:
    quoted = table.replace('"', '""')
    return frozenset(row[1] for row in db.execute(f'PRAGMA table_xinfo("{quoted}")'))


def _mismatch(db: sqlite3.Connection, schema_version: int) -> str | None:
    """What in the store contradicts its schema version, or None: a migration would fail on
    it ("table runs already exists") or queries would miss columns. Tables and columns bmn
    never makes (a user's own) are allowed."""
    if schema_version < 0:
        return "no bmn release numbers its schema below 0"
    want, last = shapes()[schema_version], shapes()[-1]
    present = {row[0] for row in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    for table, newest in last.items():
        if table not in want:
            if table in present:
                return f"it holds table {table}, made by a later version"
            continue
        if table not in present:
            return f"table {table} is missing"
        have = _columns(db, table)
        lacking, later = want[table] - have, (newest - want[table]) & have
        if lacking:
            return f"table {table} lacks column(s) {', '.join(sorted(lacking))}"
        if later:
            return f"table {table} has column(s) {', '.join(sorted(later))} of a later version"
    return None


def upgrade(db: sqlite3.Connection, path: Path) -> None:
    """Run the migrations a store lacks, inside the caller's write transaction."""
    check_identity(db, path)  # again: another process may have created or upgraded it
    from_version = version(db)
    for statements in MIGRATIONS[from_version:]:
        for statement in statements:
            db.execute(statement)
    if from_version < SCHEMA_VERSION:
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
