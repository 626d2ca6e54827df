//! The checks of an instance's forget requests: their targets, positions and the F4
//! values.

use super::*;

impl<'a> Checker<'a> {
    pub(super) fn check_requests(&mut self) {
        let inst = self.inst;
        let mut positions: HashMap<(&str, usize), &str> = HashMap::new();
        for (ri, request) in inst.requests.iter().enumerate() {
            let path = format!(".requests[{ri}]");
            let targets = self.check_targets(&path, request);
            self.check_turn_text(&format!("{path}.turn"), &request.turn);
            self.check_turn_text(&format!("{path}.filler"), &request.filler);
            let order = self.check_position(&path, request, &mut positions);
            if request.filler == request.turn {
                self.report(
                    format!("{path}.filler"),
                    "the filler is identical to the request exchange; the control version must \
                     replace the request with a different, neutral exchange",
                );
            } else if request.filler.user == request.turn.user {
                self.report(
                    format!("{path}.filler.user"),
                    "the filler repeats the request's user text, so the control version would \
                     still hold the request",
                );
            }
            for target in &targets {
                let value = target.fact.value.to_lowercase();
                if value.trim().is_empty() {
                    continue;
                }
                for (field, text) in [
                    ("turn.assistant", &request.turn.assistant),
                    ("filler.user", &request.filler.user),
                    ("filler.assistant", &request.filler.assistant),
                ] {
                    if text.to_lowercase().contains(&value) {
                        let what = if field.starts_with("turn") {
                            "the confirmation"
                        } else {
                            "the filler"
                        };
                        self.report(
                            format!("{path}.{field}"),
                            format!(
                                "{what} contains {:?}, the value of target {:?}; it must not \
                                 restate a target value",
                                target.fact.value, target.fact.id
                            ),
                        );
                    }
                }
                if let Some(order) = order
                    && !target.derived
                    && let Some((mention, mpath)) = self.last_mention.get(target.fact.id.as_str())
                    && *mention >= order
                {
                    let mpath = mpath.clone();
                    self.report(
                        mpath,
                        format!(
                            "mentions {:?}, a target of request {:?}, at or after that request \
                             ({}); targets may be mentioned only before their request",
                            target.fact.id,
                            request.id,
                            describe_position(request)
                        ),
                    );
                }
            }
        }
    }

    /// Checks the targets against the request type; returns those that resolve.
    pub(super) fn check_targets(
        &mut self,
        path: &str,
        request: &ForgetRequest,
    ) -> Vec<FactRef<'a>> {
        let kind = request.kind;
        let mut resolved = Vec::new();
        let mut seen = HashSet::new();
        for (ti, id) in request.targets.iter().enumerate() {
            let tpath = format!("{path}.targets[{ti}]");
            if !seen.insert(id.as_str()) {
                self.report(tpath, format!("target {id:?} is listed twice"));
                continue;
            }
            let Some(r) = self.facts.get(id.as_str()).copied() else {
                self.report(
                    tpath,
                    format!("target {id:?} is not a fact id of this instance"),
                );
                continue;
            };
            match (kind, r.derived) {
                (RequestType::F4, false) => self.report(
                    tpath,
                    format!(
                        "target {id:?} is an atomic fact; an F4 (inferential) request targets \
                         one derived fact"
                    ),
                ),
                (RequestType::F4, true) => resolved.push(r),
                (_, true) => self.report(
                    tpath,
                    format!(
                        "target {id:?} is a derived fact; only F4 requests target derived facts, \
                         {kind} targets atomic facts"
                    ),
                ),
                (_, false) => resolved.push(r),
            }
        }
        let n = request.targets.len();
        let count_problem = match kind {
            RequestType::F1 if n != 1 => Some("exactly 1 target"),
            RequestType::F2 if n < 2 => Some("at least 2 targets"),
            RequestType::F3 if n < 1 => Some("at least 1 target"),
            RequestType::F4 if n != 1 => Some("exactly 1 target"),
            RequestType::F5 if n < 1 => Some("at least 1 target"),
            RequestType::F6 if n != 1 => Some("exactly 1 target"),
            _ => None,
        };
        if let Some(want) = count_problem {
            self.report(
                format!("{path}.targets"),
                format!(
                    "{kind} ({}) request {:?} has {n} target(s); it needs {want}",
                    kind.name(),
                    request.id
                ),
            );
        }
        if kind == RequestType::F3
            && let Some(first) = resolved.first()
        {
            let category = &first.fact.category;
            for (ti, id) in request.targets.iter().enumerate() {
                if let Some(r) = self.facts.get(id.as_str()).copied()
                    && r.fact.category != *category
                {
                    self.report(
                        format!("{path}.targets[{ti}]"),
                        format!(
                            "target {id:?} is in category {:?} but the request's first target \
                             is in {category:?}; an F3 (semantic) request removes one category",
                            r.fact.category
                        ),
                    );
                }
            }
        }
        if kind == RequestType::F5 {
            for (ti, id) in request.targets.iter().enumerate() {
                if let Some(r) = self.facts.get(id.as_str())
                    && r.fact.timestamp.is_none()
                {
                    self.report(
                        format!("{path}.targets[{ti}]"),
                        format!(
                            "target {id:?} has no timestamp; an F5 (temporal) request removes \
                             what belongs to a time period, so every target needs one"
                        ),
                    );
                }
            }
        }
        resolved
    }

    /// Checks the position; returns its dialogue order when it resolves.
    pub(super) fn check_position(
        &mut self,
        path: &str,
        request: &'a ForgetRequest,
        positions: &mut HashMap<(&'a str, usize), &'a str>,
    ) -> Option<Order> {
        let position = &request.position;
        let Some(&si) = self.sessions.get(position.session.as_str()) else {
            self.report(
                format!("{path}.position.session"),
                format!(
                    "session {:?} is not a session id of this instance",
                    position.session
                ),
            );
            return None;
        };
        let session = &self.inst.sessions[si];
        let Some(turn) = session.turns.get(position.turn) else {
            self.report(
                format!("{path}.position.turn"),
                format!(
                    "turn {} is out of range: session {:?} has {} turns (indices from 0)",
                    position.turn,
                    session.id,
                    session.turns.len()
                ),
            );
            return None;
        };
        if let Some(other) = positions.insert((&position.session, position.turn), &request.id) {
            self.report(
                format!("{path}.position"),
                format!(
                    "request {other:?} already stands at {}; each request needs its own turn",
                    describe_position(request)
                ),
            );
        }
        for (field, stored, in_session) in [
            ("user", &request.turn.user, &turn.user),
            ("assistant", &request.turn.assistant, &turn.assistant),
        ] {
            if stored != in_session {
                self.report(
                    format!("{path}.turn.{field}"),
                    format!(
                        "differs from the {field} text of the session turn at its position \
                         ({}); request.turn must be an exact copy of that exchange",
                        describe_position(request)
                    ),
                );
            }
        }
        Some((si, position.turn))
    }

    /// An F4 target's value must appear in no dialogue text of either version: the
    /// session turns (forget version) and the fillers (control version).
    pub(super) fn check_f4_values(&mut self) {
        let inst = self.inst;
        let values: Vec<(String, &'a Fact, &'a str)> = inst
            .requests
            .iter()
            .filter(|r| r.kind == RequestType::F4)
            .flat_map(|r| r.targets.iter().map(move |t| (r, t)))
            .filter_map(|(r, t)| {
                let f = self.facts.get(t.as_str())?;
                let value = f.fact.value.to_lowercase();
                (f.derived && !value.trim().is_empty()).then_some((value, f.fact, r.id.as_str()))
            })
            .collect();
        if values.is_empty() {
            return;
        }
        let mut texts: Vec<(String, String)> = Vec::new();
        for (si, session) in inst.sessions.iter().enumerate() {
            for (ti, turn) in session.turns.iter().enumerate() {
                let path = format!(".sessions[{si}].turns[{ti}]");
                texts.push((format!("{path}.user"), turn.user.to_lowercase()));
                texts.push((format!("{path}.assistant"), turn.assistant.to_lowercase()));
            }
        }
        for (ri, request) in inst.requests.iter().enumerate() {
            let path = format!(".requests[{ri}].filler");
            texts.push((format!("{path}.user"), request.filler.user.to_lowercase()));
            texts.push((
                format!("{path}.assistant"),
                request.filler.assistant.to_lowercase(),
            ));
        }
        for (value, fact, request) in &values {
            for (path, text) in &texts {
                if text.contains(value.as_str()) {
                    self.report(
                        path.clone(),
                        format!(
                            "contains {:?}, the value of derived fact {:?} targeted by F4 \
                             request {request:?}; an inferential target must never be stated \
                             in the dialogue",
                            fact.value, fact.id
                        ),
                    );
                }
            }
        }
    }
}
