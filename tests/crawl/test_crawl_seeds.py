from corpus_pipeline.crawl.seeds import parse_seeds, partition_by_domain, registered_domain


def test_bad_seed_lines_are_reported_by_number_and_the_rest_kept():
    text = "# seeds\nhttp://a.example.com/x#frag\n\nftp://files.example.com/\nhttp://[::1\nnot a url\nhttps://B.example.org\n"
    seeds = parse_seeds(text)
    assert seeds.urls == ["http://a.example.com/x", "https://b.example.org/"]
    assert [(e.line, e.reason.split(" ")[0]) for e in seeds.errors] == [
        (4, "unsupported"),
        (5, "unparseable"),
        (6, "unsupported"),
    ]
    assert "line 4" in str(seeds.errors[0])


def test_duplicate_seeds_are_kept_once_in_canonical_form():
    assert parse_seeds("HTTP://Example.com:80/a\nhttp://example.com/a\n").urls == ["http://example.com/a"]


def test_registered_domain_uses_the_bundled_suffix_list_offline():
    assert registered_domain("news.bbc.co.uk") == "bbc.co.uk"
    assert registered_domain("www.example.com") == "example.com"
    assert registered_domain("127.0.0.1") == "127.0.0.1"
    assert registered_domain("a.b.corp.test") == "corp.test"  # no public suffix: last two labels


def test_all_hosts_of_a_registered_domain_go_to_one_group():
    urls = [f"http://h{i}.site{i % 5}.com/" for i in range(40)] + ["http://other.org/"]
    groups = partition_by_domain(urls, tasks=3)
    assert sorted(u for g in groups for u in g) == sorted(urls)
    owner = {}
    for number, group in enumerate(groups):
        for url in group:
            domain = registered_domain(url.split("/")[2])
            assert owner.setdefault(domain, number) == number
    assert len(partition_by_domain(urls, tasks=0)) <= 6
