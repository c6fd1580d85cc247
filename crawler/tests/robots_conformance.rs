//! The Google robots.txt conformance cases (`../shared/testdata/robots/cases.json`): every
//! RFC 9309 case (`ID_*`) must pass; Google-only extensions are counted and reported.

use serde_json::Value;

/// The cases, or `None` (said on stderr) when the shared test data is not beside the clone.
fn cases() -> Option<Value> {
    let path = trawl_core::testdata::shared("robots/cases.json")?;
    let text = std::fs::read_to_string(&path).unwrap();
    Some(serde_json::from_str(&text).unwrap())
}

#[test]
fn rfc9309_cases_pass() {
    let Some(cases) = cases() else { return };
    let (mut rfc_pass, mut rfc_fail, mut g_pass, mut g_fail) = (0, Vec::new(), 0, 0);
    for c in cases["allow_cases"].as_array().unwrap() {
        let robots = c["robots_txt"].as_str().unwrap();
        let agent = c["user_agent"].as_str().unwrap();
        let url = c["url"].as_str().unwrap();
        let expected = c["expected_allowed"].as_bool().unwrap();
        let got = trawl_crawler::robots_allowed(robots.as_bytes(), agent, url);
        let google_only = c["google_only"].as_bool().unwrap_or(false);
        match (google_only, got == expected) {
            (false, true) => rfc_pass += 1,
            (false, false) => rfc_fail.push(format!(
                "{}: {robots:?} agent {agent:?} url {url:?} expected {expected}",
                c["name"]
            )),
            (true, true) => g_pass += 1,
            (true, false) => g_fail += 1,
        }
    }
    eprintln!(
        "RFC 9309 cases: {rfc_pass} pass, {} fail; Google-only: {g_pass} pass, {g_fail} fail",
        rfc_fail.len()
    );
    assert!(
        rfc_fail.is_empty(),
        "RFC cases failing:\n{}",
        rfc_fail.join("\n")
    );
    assert!(rfc_pass > 70);
    for c in cases["url_to_path_cases"].as_array().unwrap() {
        assert_eq!(
            trawl_crawler::match_path(c["url"].as_str().unwrap()),
            c["expected_path"].as_str().unwrap(),
            "{c}"
        );
    }
    for c in cases["pattern_escape_cases"].as_array().unwrap() {
        assert_eq!(
            trawl_crawler::escape_pattern(c["pattern"].as_str().unwrap()),
            c["expected"].as_str().unwrap(),
            "{c}"
        );
    }
    for c in cases["sitemap_cases"].as_array().unwrap() {
        let r = texting_robots::Robot::new(
            "foo",
            &trawl_crawler::robots_preprocess(c["robots_txt"].as_str().unwrap().as_bytes()),
        )
        .unwrap();
        let want: Vec<String> = serde_json::from_value(c["expected_sitemaps"].clone()).unwrap();
        assert_eq!(r.sitemaps, want, "{}", c["name"]);
    }
    // product tokens
    for c in cases["user_agent_token_cases"].as_array().unwrap() {
        let token = c["token"].as_str().unwrap();
        let valid = !token.is_empty()
            && token
                .chars()
                .all(|ch| ch.is_ascii_alphabetic() || ch == '-' || ch == '_');
        assert_eq!(valid, c["valid"].as_bool().unwrap(), "token {token:?}");
    }
}

/// The rule recorded in consent agrees with the matcher on every RFC case where a rule
/// decides, and names its line.
#[test]
fn matched_rule_explains_the_verdicts() {
    let Some(cases) = cases() else { return };
    let (mut explained, mut agree, mut total) = (0, 0, 0);
    for c in cases["allow_cases"].as_array().unwrap() {
        if c["google_only"].as_bool().unwrap_or(false) {
            continue;
        }
        let robots = trawl_crawler::robots_preprocess(c["robots_txt"].as_str().unwrap().as_bytes());
        let agent = trawl_crawler::product_token(c["user_agent"].as_str().unwrap());
        let url = c["url"].as_str().unwrap();
        if agent.is_empty() || !url.is_ascii() {
            continue;
        }
        total += 1;
        let verdict = trawl_crawler::robots_allowed(&robots, agent, url);
        if let Some((rule, line)) = trawl_crawler::matched_rule(&robots, agent, url) {
            explained += 1;
            let allow = rule.to_ascii_lowercase().starts_with("allow");
            if allow == verdict {
                agree += 1;
            }
            assert!(line >= 1);
        } else if verdict {
            agree += 1; // no rule: allowed by default
        }
    }
    eprintln!("matched_rule: {explained} explained, {agree}/{total} agree with the matcher");
    assert!(agree * 100 >= total * 95, "{agree}/{total}");
    let r = b"User-agent: *\nAllow: /a/b\nDisallow: /a\n";
    assert_eq!(
        trawl_crawler::matched_rule(r, "bot", "http://x/a/c"),
        Some(("Disallow: /a".into(), 3))
    );
    assert_eq!(
        trawl_crawler::matched_rule(r, "bot", "http://x/a/b/c"),
        Some(("Allow: /a/b".into(), 2))
    );
    assert_eq!(trawl_crawler::matched_rule(r, "bot", "http://x/z"), None);
}

#[test]
fn matched_rule_demo_case() {
    let r = trawl_crawler::robots_preprocess(b"User-agent: *\nDisallow: /private/\n\nUser-agent: trawl-extended\nDisallow: /no-train/\n\nSitemap: http://x/s.xml\n");
    assert_eq!(
        trawl_crawler::matched_rule(
            &r,
            "trawl-extended",
            "http://127.0.0.2:1/no-train/opinion.html"
        ),
        Some(("Disallow: /no-train/".into(), 5))
    );
}
