"""``tacit ui [--port N] [--no-open] [--project DIR]`` — the local page.

Design notes: docs/design/commands.md#tacitcommandsui"""

from __future__ import annotations

import sys
import threading

from tacit.commands import command


def add_parser(subparsers) -> None:
    p = command(subparsers, "ui", _ui,
                help="a local page: memory, history with undo, guards, review, cost, skills")
    p.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default: any free one)")
    p.add_argument("--no-open", action="store_true", help="print the URL but do not open a browser")
    p.add_argument("--project", metavar="DIR", help="the project of this folder (default: the working folder)")


def _ui(args, cfg) -> int:
    from tacit.commands import command, emit, project_folder, refuse
    from tacit.projects import project_for
    from tacit.ui.routes import UIApp
    from tacit.ui.server import start

    if not 0 <= args.port <= 65535:
        return refuse(f"--port {args.port}: give a port from 1 to 65535 (0: any free one)", 2)
    try:
        folder = project_folder(args, cfg)
        server, thread = start(UIApp(cfg, project_for(folder)), args.port)
    except OSError as exc:
        return refuse(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}")
    emit({"success": True, "url": server.url, "port": server.port}, text=server.url)
    if not args.no_open:
        import webbrowser

        threading.Thread(target=webbrowser.open, args=(server.url,), daemon=True).start()
    sys.stderr.write("tacit ui: serving until Ctrl-C\n")
    try:
        while thread.is_alive():
            thread.join(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
    return 0
