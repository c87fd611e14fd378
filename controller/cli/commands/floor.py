"""``dicetable floor``: the floor service, and what it holds.

- ``dicetable floor --broker URL --db FILE``: subscribe to every table on the broker, keep their
  rows in FILE (SQLite), check each table's chain as it arrives, acknowledge, raise alerts, and
  serve the floor page (127.0.0.1:8090 by default); until SIGTERM or ^C.
- ``dicetable floor --db FILE export --table ID``: that table's rows of its current journal,
  exactly as ``dicetable journal export`` prints them at the table.
- ``dicetable floor --db FILE report --table ID [--since ISO] [--until ISO] [--json]``: the pit's
  numbers of that table's current journal, computed from the floor's copy by the same function
  as ``dicetable journal report`` at the table (:mod:`controller.pit`), so the two agree.
- ``dicetable floor --db FILE check``: exit 0 when every table's copy is an unbroken chain, no
  alert stands and no table is silent; 1, naming each table and row, otherwise. Rows no signed
  head covers yet are listed as pending, which fails nothing.
- ``dicetable floor --db FILE accept --table ID --journal HEAD --reason TEXT``: after the
  investigation, link that journal into the table's line (a table rebuilt on a new card), recorded.
- ``dicetable floor --db FILE enroll TABLE_ID PUBKEY_FILE``: pin a table's key before it first speaks.

``export``, ``report``, ``check`` and ``tables`` open the database read-only beside the running service;
``accept`` and ``enroll`` add a record to it, which the service reads at the table's next message.
"""
from __future__ import annotations

import argparse
import sys

from controller.cli.argtypes import at_least
from controller.cli.commands.journal import add_range
from controller.floor.topics import SILENT_AFTER_S

NAME = "floor"
HELP = "the floor: keep every table's journal from an MQTT broker, check it, serve the floor page"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="FILE", required=True, help="the floor's database (SQLite; made if missing)")
    parser.add_argument("--broker", metavar="URL", help="the broker: mqtt://HOST:PORT or mqtts://HOST:PORT")
    parser.add_argument("--username", metavar="USER", help="the floor's broker user")
    parser.add_argument("--password-file", metavar="FILE", help="a file holding the broker user's password alone")
    parser.add_argument("--cafile", metavar="FILE", help="for mqtts://: the CA certificate that signed the broker's")
    parser.add_argument("--listen", metavar="HOST:PORT", default="127.0.0.1:8090",
                        help="where the floor page listens (default 127.0.0.1:8090); 'none' for no page")
    parser.add_argument("--users", metavar="FILE",
                        help="the floor page's users file (default: floor-users beside --db), made and kept with "
                             "`dicetable user --users FILE add NAME --role pit`")
    parser.add_argument("--certificate", metavar="FILE", help="the page's TLS certificate (PEM; needed off loopback)")
    parser.add_argument("--key", metavar="FILE", help="the page's TLS private key (PEM)")
    parser.add_argument("--networks", metavar="CIDR", nargs="+", default=[],
                        help="networks besides loopback whose browsers may open the page, e.g. 192.168.1.0/24")
    parser.add_argument("--hosts", metavar="NAME", nargs="+", default=[],
                        help="host names browsers reach the page by, besides the address it listens on (a reverse "
                             "proxy's or a DNS name, e.g. floor.casino.lan); a request naming another host is refused")
    parser.add_argument("--trusted-proxies", metavar="CIDR", nargs="+", default=[],
                        help="reverse proxies believed about the browser behind them (X-Forwarded-For, "
                             "X-Forwarded-Proto), e.g. 127.0.0.1; by default none: every peer is its own client")
    parser.add_argument("--client-id", metavar="ID",
                        help="the floor's MQTT client id (default: dicetable-floor-HOST-DIGEST, from this machine's "
                             "name and the database): two floors on one broker need two ids")
    parser.add_argument("--silent-after", type=at_least(1), default=SILENT_AFTER_S, metavar="S",
                        help="a table not heard for S seconds (a signed status at least every minute), whose last "
                             f"word was not its clean stop, is silent: shown on the page, and check fails (default "
                             f"{SILENT_AFTER_S})")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every connection and resend")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    export = actions.add_parser("export", help="a table's rows of its current journal, as `journal export` prints them")
    export.add_argument("--table", required=True, metavar="ID", help="the table id")
    export.add_argument("--journal", metavar="HASH",
                        help="an earlier journal of the table (its first row's hash, as `tables` lists it)")
    report = actions.add_parser("report", help="the pit's numbers of a table's current journal, as `journal report` "
                                                "prints them at the table")
    report.add_argument("--table", required=True, metavar="ID", help="the table id")
    report.add_argument("--journal", metavar="HASH", help="an earlier journal of the table (its first row's hash)")
    add_range(report)
    report.add_argument("--json", action="store_true", help="one JSON object (the same as `dicetable journal report`)")
    actions.add_parser("check", help="exit 0 when every copy is an unbroken chain, no alert stands and no table is "
                                     "silent, else 1 naming the table and row; rows not yet under a signed head are "
                                     "listed as pending")
    actions.add_parser("tables", help="every table: its journals, rows held, status and alerts, as JSON lines")
    accept = actions.add_parser("accept", help="after the investigation, link a journal the floor holds into its "
                                               "table's line (a table rebuilt on a new card), recorded with the reason")
    accept.add_argument("--table", required=True, metavar="ID", help="the table id")
    accept.add_argument("--journal", required=True, metavar="HEAD",
                        help="the journal to accept: its first row's hash, as the replaced alert and `tables` name it")
    accept.add_argument("--reason", required=True, metavar="TEXT", help="why, for the record")
    enroll = actions.add_parser("enroll", help="pin a table's public key before it first speaks")
    enroll.add_argument("table_id", metavar="TABLE_ID")
    enroll.add_argument("pubkey_file", metavar="PUBKEY_FILE",
                        help="the table's table.pub (beside its table.key in its state directory)")
    enroll.add_argument("--reason", metavar="TEXT", help="needed to pin another key than the one pinned, for the record")


def run(args: argparse.Namespace) -> int:
    import logging

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if args.action is None:
        return _serve(args)
    if args.broker:
        print(f"dicetable floor {args.action}: --broker is for running the floor, not for {args.action}",
              file=sys.stderr)
        return 2
    from controller.floor.store import FloorStore, FloorStoreError

    try:
        store = FloorStore(args.db, readonly=args.action not in ("accept", "enroll"))
    except FloorStoreError as exc:
        print(f"dicetable floor: {exc}", file=sys.stderr)
        return 2
    with store:
        if args.action in ("export", "report"):
            return _export(store, args)
        if args.action == "check":
            return _check(store, args.silent_after)
        if args.action == "accept":
            return _accept(store, args.table, args.journal, args.reason)
        if args.action == "enroll":
            return _enroll(store, args.table_id, args.pubkey_file, args.reason)
        return _tables(store, args.silent_after)


def _export(store, args: argparse.Namespace) -> int:
    """``export`` (the rows as the table's ``journal export`` prints them) or ``report`` (the pit's
    numbers of them) of a table's journal."""
    table, journal = args.table, args.journal
    if journal is None and store.current_journal(table) is None:
        known = ", ".join(store.current_journals()) or "none yet"
        print(f"dicetable floor {args.action}: the floor holds no journal of table {table!r} (tables: {known})",
              file=sys.stderr)
        return 2
    if journal is not None and journal not in [j for j, _, _ in store.journals(table)]:
        print(f"dicetable floor {args.action}: the floor holds no journal {journal} of table {table!r}", file=sys.stderr)
        return 2
    if args.action == "report":
        from controller.cli.commands.journal import print_report
        from controller.pit import rows_of_lines

        print_report(rows_of_lines(store.lines(table, journal)), args)
        return 0
    for line in store.lines(table, journal):
        print(line)
    return 0


def _check(store, silent_after: float) -> int:
    from controller.floor.check import alert_problems, chain_problems, silent_problems
    from controller.jsonlines import json_line

    alerts = store.alerts()
    problems = (chain_problems(store.raw_rows()) + alert_problems(a for a in alerts if not a.accepted)
                + silent_problems(store.silent(silent_after), silent_after))
    journals = sum(len(store.journals(t)) for t in store.tables())
    for problem in problems:
        print(json_line(problem.to_json()))
        print(f"dicetable floor check: {problem}", file=sys.stderr)
    pending = store.pending()
    for table, journal, first, last in pending:
        print(json_line({"table": table, "journal": journal, "pending": [first, last]}))
        print(f"dicetable floor check: table {table} (journal {journal[:12]}): rows {first} to {last} not yet under a "
              "signed head (pending)", file=sys.stderr)
    if not problems:
        print(json_line({"ok": True, "tables": len(store.tables()), "journals": journals,
                         "pending": sum(last - first + 1 for _, _, first, last in pending),
                         "accepted": sum(1 for a in alerts if a.accepted)}))
    return 1 if problems else 0


def _accept(store, table: str, journal: str, reason: str) -> int:
    from controller.floor.store import FloorStoreError
    from controller.jsonlines import json_line

    if not reason.strip():
        print("dicetable floor accept: --reason must say why", file=sys.stderr)
        return 2
    try:
        store.accept(table, journal, reason.strip())
    except FloorStoreError as exc:
        print(f"dicetable floor accept: {exc}", file=sys.stderr)
        return 2
    print(json_line({"table": table, "current": store.current_journal(table), "key": store.pinned_key(table),
                     "reason": reason.strip()}))
    return 0


def _enroll(store, table: str, pubkey_file: str, reason: str | None) -> int:
    from controller.floor.signing import SigningError, read_public
    from controller.floor.store import FloorStoreError
    from controller.floor.topics import table_id_problem
    from controller.jsonlines import json_line

    problem = table_id_problem(table)
    if problem:
        print(f"dicetable floor enroll: TABLE_ID {problem}", file=sys.stderr)
        return 2
    try:
        key = read_public(pubkey_file)
        pinned = store.enroll(table, key, (reason or "").strip() or None)
    except (SigningError, FloorStoreError) as exc:
        print(f"dicetable floor enroll: {exc}", file=sys.stderr)
        return 2
    print(json_line({"table": table, "key": key, "pinned": "now" if pinned else "already"}))
    return 0


def _tables(store, silent_after: float) -> int:
    from controller.jsonlines import json_line

    states, keys, silent, current = store.states(), store.keys(), store.silent(silent_after), store.current_journals()
    for table in store.tables():
        state = states.get(table, {})
        print(json_line({"table": table, "online": state.get("online"), "silent": table in silent,
                         "heard_at": state.get("heard_at"), "status": state.get("status"),
                         "current": current.get(table), "key": keys.get(table),
                         "journals": [{"journal": j, "first_ts": ts, "rows": n} for j, ts, n in store.journals(table)],
                         "alerts": sum(1 for a in store.alerts(table) if not a.accepted)}))
    return 0


def _serve(args: argparse.Namespace) -> int:
    import signal
    import threading

    from controller.floor.broker import BrokerError, parse_broker
    from controller.floor.service import FloorService
    from controller.floor.store import FloorStoreError

    if not args.broker:
        print("dicetable floor: --broker URL is needed to run the floor (or name an action: export, check, tables)",
              file=sys.stderr)
        return 2
    try:
        broker = parse_broker(args.broker, username=args.username, password_file=args.password_file,
                              cafile=args.cafile)
    except BrokerError as exc:
        print(f"dicetable floor: {exc}", file=sys.stderr)
        return 2
    page = None
    if args.listen != "none":
        from controller.floor.page import PageError, start_page

        try:
            page = start_page(args.db, args.listen, users=args.users, certificate=args.certificate, key=args.key,
                              networks=tuple(args.networks), hosts=tuple(args.hosts),
                              trusted_proxies=tuple(args.trusted_proxies), silent_after=args.silent_after)
        except PageError as exc:
            print(f"dicetable floor: {exc}", file=sys.stderr)
            return 2
    stop = threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stop.set())
    try:
        service = FloorService(args.db, broker, client_id=args.client_id,
                               on_alert=page.alert if page is not None else None).start()
    except FloorStoreError as exc:
        print(f"dicetable floor: {exc}", file=sys.stderr)
        if page is not None:
            page.stop()
        return 2
    from controller.floor.backends import describe
    from controller.jsonlines import json_line

    # One JSON line once it runs (standard output carries JSON only): the database, the broker, the page.
    print(json_line({"floor": describe(args.db), "broker": broker.url, "page": page.url if page is not None else None,
                     "client_id": service.client_id}), flush=True)
    try:
        while not stop.wait(0.5):
            if not service.alive:
                print(f"dicetable floor: {service.failure or 'the store stopped (see the log above)'}", file=sys.stderr)
                return 3
    finally:
        service.stop()
        if page is not None:
            page.stop()
    return 0
