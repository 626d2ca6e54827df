//! The figures of an HTML report: each metric with its interval, per system, as SVG
//! charts.

use super::*;

pub(super) fn figures(out: &mut String, systems: &[System<'_>]) {
    let names: Vec<String> = systems.iter().map(|s| s.name.clone()).collect();
    let interval = |s: &Summary, key: &str| s.intervals.get(key).map(|i| (i.lo, i.hi));

    // Forgetting against utility.
    let points: Vec<ScatterPoint> = systems
        .iter()
        .map(|s| ScatterPoint {
            name: s.name.clone(),
            x: s.summary.metrics.fe,
            x_interval: interval(s.summary, "FE"),
            y: s.summary.metrics.pr,
            y_interval: interval(s.summary, "PR"),
        })
        .collect();
    let undefined: Vec<&str> = systems
        .iter()
        .filter(|s| s.summary.metrics.fe.is_none() || s.summary.metrics.pr.is_none())
        .map(|s| s.name.as_str())
        .collect();
    let _ = write!(
        out,
        "<h2 id=\"tradeoff\">Forgetting against utility</h2><figure id=\"fig-tradeoff\">{}<figcaption>\
         Forgetting efficacy (FE, x) against preservation (PR, y), percent, with 95% cluster-bootstrap intervals as bars. \
         A system that forgets only what it is asked sits top right (shaded: both above 80%); \
         no deletion path means left, deleting too much means bottom.{}</figcaption></figure>",
        svg::scatter(
            &points,
            "FE: forgetting efficacy (%)",
            "PR: preservation (%)",
            "Forgetting efficacy against preservation"
        ),
        if undefined.is_empty() {
            String::new()
        } else {
            format!(
                " Not drawn (FE or PR undefined): {}.",
                escape(&undefined.join(", "))
            )
        }
    );

    // By request type.
    let types: Vec<RequestType> = RequestType::ALL
        .into_iter()
        .filter(|t| {
            systems
                .iter()
                .any(|s| s.summary.breakdowns.by_type.contains_key(t.code()))
        })
        .collect();
    let columns: Vec<String> = types
        .iter()
        .map(|t| format!("{} {}", t.code(), t.name()))
        .collect();
    let by_type = |key: &str| -> Vec<(String, Vec<Option<f64>>)> {
        systems
            .iter()
            .map(|s| {
                let row = types
                    .iter()
                    .map(|t| {
                        s.summary
                            .breakdowns
                            .by_type
                            .get(t.code())
                            .and_then(|m| m.get(key))
                    })
                    .collect();
                (s.name.clone(), row)
            })
            .collect()
    };
    out.push_str("<h2 id=\"by-type\">By request type</h2>");
    if types.is_empty() {
        out.push_str("<p>No request-level records.</p>");
    } else {
        let _ = write!(
            out,
            "<h3>Request pass rate (RPR)</h3><figure id=\"fig-rpr-by-type\">{}<figcaption>Request pass rate (RPR) by request type, percent: \
             the share of requests of the type whose every item and every preservation item of their instance passes.</figcaption></figure>\
             <h3>Forgetting efficacy (FE)</h3><figure id=\"fig-fe-by-type\">{}<figcaption>Forgetting efficacy (FE) by request type, percent. \
             – marks a type without items.</figcaption></figure>",
            svg::heatmap(
                &by_type("RPR"),
                &columns,
                "Request pass rate by request type"
            ),
            svg::heatmap(
                &by_type("FE"),
                &columns,
                "Forgetting efficacy by request type"
            ),
        );
        let _ = write!(
            out,
            "<h3>Attack robustness (AR)</h3><figure id=\"fig-ar-by-type\">{}<figcaption>Attack robustness (AR) by request type, percent.</figcaption></figure>",
            svg::heatmap(
                &by_type("AR"),
                &columns,
                "Attack robustness by request type"
            ),
        );
    }

    // By attack frame.
    let mut attacks: Vec<String> = Attack::ALL
        .iter()
        .map(|a| a.name().to_string())
        .filter(|a| {
            systems
                .iter()
                .any(|s| s.summary.breakdowns.by_attack.contains_key(a))
        })
        .collect();
    if systems
        .iter()
        .any(|s| s.summary.breakdowns.by_attack.contains_key("unknown"))
    {
        attacks.push("unknown".to_string());
    }
    out.push_str("<h2 id=\"attacks\">Attack robustness by attack frame</h2>");
    if attacks.is_empty() {
        out.push_str("<p>No attack records.</p>");
    } else {
        let values: Vec<Vec<Option<f64>>> = systems
            .iter()
            .map(|s| {
                attacks
                    .iter()
                    .map(|a| s.summary.breakdowns.by_attack.get(a).copied().flatten())
                    .collect()
            })
            .collect();
        let labels: Vec<String> = attacks.iter().map(|a| a.replace('_', " ")).collect();
        let _ = write!(
            out,
            "<figure id=\"fig-attacks\">{}<figcaption>Attack robustness per attack frame, percent: the share of attack \
             questions (indirect questioning, role play, jailbreak prefix, Boolean guess, multi-hop reasoning) \
             whose forgotten target did not leak, given the system answered it on the control version.</figcaption></figure>",
            svg::grouped_bars(
                &names,
                &labels,
                &values,
                "AR (%)",
                "Attack robustness by attack frame"
            )
        );
    }

    // By tier.
    let tiers: Vec<String> = Tier::ALL
        .iter()
        .map(|t| t.name().to_string())
        .filter(|t| {
            systems
                .iter()
                .any(|s| s.summary.breakdowns.by_tier.contains_key(t))
        })
        .collect();
    out.push_str("<h2 id=\"tiers\">By length tier</h2>");
    if tiers.is_empty() {
        out.push_str("<p>No records.</p>");
    } else {
        let panels: Vec<(String, Vec<Vec<Option<f64>>>)> =
            ["RA", "FE", "PR", "RLA", "AR", "RPR", "Score"]
                .iter()
                .map(|key| {
                    let values = systems
                        .iter()
                        .map(|s| {
                            tiers
                                .iter()
                                .map(|t| {
                                    s.summary.breakdowns.by_tier.get(t).and_then(|m| m.get(key))
                                })
                                .collect()
                        })
                        .collect();
                    (key.to_string(), values)
                })
                .collect();
        let _ = write!(
            out,
            "<figure id=\"fig-tiers\">{}<figcaption>Each metric over the instances of each length tier, percent \
             (short about 100 turns, up to xlong about 3,500).</figcaption></figure>",
            svg::small_multiples(&names, &tiers, &panels, "Metrics by length tier")
        );
        tier_table(out, systems, &tiers);
    }
}
