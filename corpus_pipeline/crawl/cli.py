"""The `demo-site` verb, for `corpus_pipeline.cli.build_parser` to add.

    register(verbs)   # verbs: the sub-parsers of build_parser

Each parser sets `handler(args, config) -> exit code`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from corpus_pipeline.config import PipelineConfig

EXIT_OK = 0


def run_demo_site(args: argparse.Namespace, config: PipelineConfig) -> int:
    from corpus_pipeline.demo.server import DemoServer

    with DemoServer(port=args.port, max_articles_per_source=args.max_articles) as server:
        print(f"demo site: {server.base_url}/ ({len(server.site.pages)} pages); Ctrl-C stops it", flush=True)
        if args.seeds_file:
            args.seeds_file.write_text(f"{server.base_url}/\n{server.base_url}/sitemap.xml\n", encoding="utf-8")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return EXIT_OK


def register(verbs) -> None:
    """Add `demo-site [--port P]` (the `crawl` verb comes from the stage registry)."""
    from corpus_pipeline.cli_options import add_config_options

    demo = verbs.add_parser("demo-site", help="serve the demo website on 127.0.0.1 until interrupted")
    demo.add_argument("--port", type=int, default=8000)
    demo.add_argument("--max-articles", type=int, help="cap pages per kind (a small site for quick checks)")
    demo.add_argument("--seeds-file", type=Path, help="write the site's seed URLs here once it is serving")
    add_config_options(demo)
    demo.set_defaults(handler=run_demo_site)
