//! The checks of an instance's questions: each suite's rules, and each gold.

use super::*;

impl<'a> Checker<'a> {
    pub(super) fn check_questions(&mut self) {
        let inst = self.inst;
        let mut targeted: HashSet<&str> = HashSet::new();
        let mut f4_sources: HashSet<&str> = HashSet::new();
        for request in &inst.requests {
            targeted.extend(request.targets.iter().map(String::as_str));
            if request.kind == RequestType::F4 {
                for t in &request.targets {
                    if let Some(r) = self.facts.get(t.as_str()) {
                        f4_sources.extend(r.fact.sources.iter().map(String::as_str));
                    }
                }
            }
        }
        for (qi, question) in inst.questions.iter().enumerate() {
            let path = format!(".questions[{qi}]");
            self.check_question(&path, question, &targeted, &f4_sources);
        }
    }

    pub(super) fn check_question(
        &mut self,
        path: &str,
        q: &'a Question,
        targeted: &HashSet<&str>,
        f4_sources: &HashSet<&str>,
    ) {
        let inst = self.inst;
        let suite = q.suite;
        self.non_empty(format!("{path}.text"), "the question text", &q.text);

        // References.
        let fact = self.facts.get(q.fact.as_str()).copied();
        if fact.is_none() {
            self.report(
                format!("{path}.fact"),
                format!("fact {:?} is not a fact id of this instance", q.fact),
            );
        }
        let request: Option<&ForgetRequest> = match &q.request {
            None => None,
            Some(id) => match self.requests.get(id.as_str()) {
                Some(&i) => Some(&inst.requests[i]),
                None => {
                    self.report(
                        format!("{path}.request"),
                        format!("request {id:?} is not a request id of this instance"),
                    );
                    None
                }
            },
        };
        let conditioned: Option<&Question> = match &q.conditioned_on {
            None => None,
            Some(id) => match self.questions.get(id.as_str()) {
                Some(&i) => Some(&inst.questions[i]),
                None => {
                    self.report(
                        format!("{path}.conditioned_on"),
                        format!("question {id:?} is not a question id of this instance"),
                    );
                    None
                }
            },
        };
        let f6 = request.is_some_and(|r| r.kind == RequestType::F6);
        let this = a_question(suite, f6);

        // Fields that belong to one suite.
        if (q.attack.is_some()) != (suite == Suite::Attack) {
            let reason = if suite == Suite::Attack {
                "an attack question needs its attack frame in `attack`".to_string()
            } else {
                format!("`attack` is set on {this}; only attack questions have one")
            };
            self.report(format!("{path}.attack"), reason);
        }
        if (q.request.is_none()) != (suite == Suite::Preservation) {
            let reason = if suite == Suite::Preservation {
                "a preservation question belongs to the instance, not a request; set `request` \
                 to null"
                    .to_string()
            } else {
                format!("{this} needs the id of the request it probes in `request`")
            };
            self.report(format!("{path}.request"), reason);
        }
        match (&q.relearn, suite == Suite::Relearning) {
            (None, true) => self.report(
                format!("{path}.relearn"),
                "a relearning question needs the dialogue that states the new value in `relearn`",
            ),
            (Some(turns), true) if turns.is_empty() => self.report(
                format!("{path}.relearn"),
                "the relearning dialogue is empty; it must state the new value",
            ),
            (Some(_), false) => self.report(
                format!("{path}.relearn"),
                format!("`relearn` is set on {this}; only relearning questions have one"),
            ),
            _ => {}
        }
        let wants_control = matches!(suite, Suite::Preservation | Suite::Attack);
        match (&q.control_gold, wants_control) {
            (None, true) => self.report(
                format!("{path}.control_gold"),
                format!(
                    "{this} is also asked on the control version and needs \
                     `control_gold`"
                ),
            ),
            (Some(g), true) if g.trim().is_empty() => {
                self.report(format!("{path}.control_gold"), "control_gold is empty")
            }
            (Some(_), false) => self.report(
                format!("{path}.control_gold"),
                format!(
                    "`control_gold` is set on {this}; only preservation and attack \
                     questions are asked on the control version"
                ),
            ),
            _ => {}
        }

        // Conditioning.
        match suite {
            Suite::Preservation | Suite::Attack => {
                if q.conditioned_on.as_deref() != Some(q.id.as_str()) {
                    self.report(
                        format!("{path}.conditioned_on"),
                        format!(
                            "{this} is conditioned on its own control-version answer; \
                             set conditioned_on to {:?}",
                            q.id
                        ),
                    );
                }
            }
            Suite::Efficacy if !f6 => match conditioned {
                None if q.conditioned_on.is_none() => self.report(
                    format!("{path}.conditioned_on"),
                    "an efficacy question must be conditioned_on the retention question of the \
                     same request and fact",
                ),
                None => {}
                Some(c)
                    if c.suite != Suite::Retention
                        || c.request != q.request
                        || c.fact != q.fact =>
                {
                    self.report(
                        format!("{path}.conditioned_on"),
                        format!(
                            "question {:?} is a {} question of request {:?} about {:?}; an \
                             efficacy question must be conditioned on the retention question \
                             of the same request and fact",
                            c.id,
                            c.suite,
                            c.request.as_deref().unwrap_or("null"),
                            c.fact
                        ),
                    );
                }
                Some(_) => {}
            },
            Suite::Retention | Suite::Relearning | Suite::Efficacy => {
                if q.conditioned_on.is_some() {
                    let what = if suite == Suite::Efficacy {
                        "an F6 efficacy question asks for the new value and".to_string()
                    } else {
                        this.clone()
                    };
                    self.report(
                        format!("{path}.conditioned_on"),
                        format!("{what} has no control probe; set conditioned_on to null"),
                    );
                }
            }
        }

        // The fact belongs to the request.
        if let (Some(r), Some(_)) = (request, fact)
            && !matches!(suite, Suite::Relearning | Suite::Preservation)
            && !r.targets.contains(&q.fact)
        {
            self.report(
                format!("{path}.fact"),
                format!(
                    "fact {:?} is not a target of request {:?}; {this} probes one of \
                     its request's targets",
                    q.fact, r.id
                ),
            );
        }
        if suite == Suite::Preservation {
            if targeted.contains(q.fact.as_str()) {
                self.report(
                    format!("{path}.fact"),
                    format!(
                        "fact {:?} is targeted by a request; preservation questions ask about \
                         facts no request targets",
                        q.fact
                    ),
                );
            }
            if f4_sources.contains(q.fact.as_str()) {
                self.report(
                    format!("{path}.fact"),
                    format!(
                        "fact {:?} is a source of an F4 target; those facts are excluded from \
                         preservation (their fate is not part of the F4 semantics)",
                        q.fact
                    ),
                );
            }
        }

        self.check_gold(path, q, fact.map(|f| f.fact), f6);

        // A leak list holds every target of the request: an answer that reveals another
        // target of the same request (the other half of a combination, another member
        // of a category) leaks too. An F6 efficacy question lists the old value.
        let lists_leaks = q.gold_is_marker() || suite == Suite::Efficacy && f6;
        if lists_leaks && let Some(r) = request {
            for target in &r.targets {
                let Some(t) = self.facts.get(target.as_str()) else {
                    continue;
                };
                if !contains_ci(&q.leak, &t.fact.value) {
                    let what = if f6 {
                        "the old value"
                    } else {
                        "the value of a target"
                    };
                    self.report(
                        format!("{path}.leak"),
                        format!(
                            "leak does not list {:?}, {what} of request {:?} (fact {:?}); \
                             leak lists every target of the request",
                            t.fact.value, r.id, t.fact.id
                        ),
                    );
                }
            }
        }
    }

    pub(super) fn check_gold(&mut self, path: &str, q: &Question, fact: Option<&Fact>, f6: bool) {
        let suite = q.suite;
        if q.gold.trim().is_empty() {
            self.report(format!("{path}.gold"), "the gold answer is empty");
            return;
        }
        for (i, a) in q.accepted.iter().enumerate() {
            if a.trim().is_empty() {
                self.report(
                    format!("{path}.accepted[{i}]"),
                    "an accepted spelling is empty",
                );
            }
        }
        for (i, l) in q.leak.iter().enumerate() {
            if l.trim().is_empty() {
                self.report(format!("{path}.leak[{i}]"), "a leak value is empty");
            }
        }
        // Which marker, if any, the suite requires. F6 efficacy asks for the new value.
        let marker = match suite {
            Suite::Efficacy if !f6 => Some(FORGOTTEN),
            Suite::Attack => Some(NO_LEAK),
            _ => None,
        };
        match marker {
            Some(m) if q.gold != m => self.report(
                format!("{path}.gold"),
                format!(
                    "the gold of {} must be the marker {m}",
                    a_question(suite, f6)
                ),
            ),
            None if q.gold_is_marker() => self.report(
                format!("{path}.gold"),
                format!(
                    "the marker {} is not allowed on {}; {FORGOTTEN} belongs to efficacy \
                     questions of F1–F5 requests and {NO_LEAK} to attack questions",
                    q.gold,
                    a_question(suite, f6)
                ),
            ),
            _ => {}
        }
        if q.gold_is_marker() {
            if q.leak.is_empty() {
                self.report(
                    format!("{path}.leak"),
                    "a question with a marker gold needs the values that must not appear in \
                     `leak`",
                );
            } else if let Some(f) = fact
                && !contains_ci(&q.leak, &f.value)
            {
                self.report(
                    format!("{path}.leak"),
                    format!(
                        "leak does not list {:?}, the value of fact {:?}",
                        f.value, f.id
                    ),
                );
            }
            if !q.accepted.is_empty() {
                self.report(
                    format!("{path}.accepted"),
                    "accepted spellings belong to value golds, not to a marker; list them in \
                     `leak` instead",
                );
            }
        }
        let Some(fact) = fact else { return };
        match suite {
            Suite::Retention | Suite::Preservation
                if !eq_ci(&q.gold, &fact.value) && !contains_ci(&q.accepted, &fact.value) =>
            {
                self.report(
                    format!("{path}.gold"),
                    format!(
                        "gold {:?} is not the value {:?} of fact {:?} (nor is that value among \
                         `accepted`)",
                        q.gold, fact.value, fact.id
                    ),
                );
            }
            Suite::Efficacy if f6 && eq_ci(&q.gold, &fact.value) => self.report(
                format!("{path}.gold"),
                format!(
                    "an F6 efficacy question's gold must be the new value, but {:?} is the old \
                     value of fact {:?}",
                    q.gold, fact.id
                ),
            ),
            Suite::Relearning => {
                if eq_ci(&q.gold, &fact.value) {
                    self.report(
                        format!("{path}.gold"),
                        format!(
                            "gold {:?} is the value of fact {:?}; relearning asks for a new \
                             value of the same kind",
                            q.gold, fact.id
                        ),
                    );
                }
                if let Some(turns) = &q.relearn
                    && !turns.is_empty()
                {
                    let gold = q.gold.to_lowercase();
                    let stated = turns.iter().any(|t| {
                        t.user.to_lowercase().contains(&gold)
                            || t.assistant.to_lowercase().contains(&gold)
                    });
                    if !stated {
                        self.report(
                            format!("{path}.gold"),
                            format!(
                                "gold {:?} does not appear in the relearn dialogue; the new \
                                 value must be stated there",
                                q.gold
                            ),
                        );
                    }
                }
            }
            _ => {}
        }
        if let Some(turns) = &q.relearn {
            for (i, turn) in turns.iter().enumerate() {
                self.check_turn_text(&format!("{path}.relearn[{i}]"), turn);
            }
        }
        if let Some(control) = &q.control_gold
            && !control.trim().is_empty()
        {
            let ok = eq_ci(control, &fact.value)
                || contains_ci(&q.accepted, &fact.value) && eq_ci(control, &q.gold)
                || suite == Suite::Attack && contains_ci(&q.leak, control);
            if !ok {
                self.report(
                    format!("{path}.control_gold"),
                    format!(
                        "control_gold {control:?} is not the value {:?} of fact {:?}",
                        fact.value, fact.id
                    ),
                );
            }
        }
    }
}
