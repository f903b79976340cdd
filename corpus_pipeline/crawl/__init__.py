"""The crawler: seeds -> polite, safe scrapy crawls (one subprocess per task) -> WARC/1.1 files.

seeds.py reads and partitions seeds; settings.py maps CrawlConfig to scrapy settings; spider.py,
middlewares.py and safety.py are what runs inside scrapy; warc_writer.py writes the records;
worker.py is the subprocess entry point; runner.py starts one per task; stage.py plans the tasks.
"""
