use super::*;

fn unit(original: &str) -> Unit {
    let values = vec!["Denver".to_string(), "Maria Lopez".to_string()];
    let targets = vec!["Maria Lopez".to_string()];
    Unit::new(UnitKind::User, original, &values, &targets)
}

#[test]
fn values_the_original_states_are_required_and_targets_it_lacks_forbidden() {
    let u = unit("We moved to Denver last spring and I love it.");
    assert_eq!(u.required, ["Denver"]);
    assert_eq!(u.forbidden, ["Maria Lopez"]);
    let v = unit("My sister Maria Lopez visits often.");
    assert_eq!(v.required, ["Maria Lopez"]);
    assert!(v.forbidden.is_empty());
}

#[test]
fn a_faithful_rewrite_passes() {
    let u = unit("We moved to Denver last spring and I love it.");
    assert_eq!(
        u.check("Last spring we relocated to denver, and I really love it there."),
        Ok(())
    );
}

#[test]
fn a_rewrite_that_drops_a_value_fails() {
    let u = unit("We moved to Denver last spring and I love it.");
    let e = u.check("We moved to a new city last spring.").unwrap_err();
    assert!(e.contains("Denver"), "{e}");
}

#[test]
fn a_rewrite_that_adds_a_target_fails() {
    let u = unit("We moved to Denver last spring and I love it.");
    let e = u
        .check("We moved to Denver last spring with Maria Lopez.")
        .unwrap_err();
    assert!(e.contains("Maria Lopez"), "{e}");
}

#[test]
fn a_target_inside_a_longer_word_counts_as_added() {
    let values = vec!["nurse".to_string()];
    let u = Unit::new(
        UnitKind::Assistant,
        "The clinic opens at nine.",
        &values,
        &values,
    );
    assert_eq!(u.forbidden, ["nurse"]);
    assert!(
        u.check("The nursery next to the clinic opens at nine.")
            .is_err()
    );
    let w = Unit::new(
        UnitKind::User,
        "The nursery opens at nine.",
        &values,
        &values,
    );
    assert!(w.forbidden.is_empty());
}

#[test]
fn empty_and_overlong_rewrites_fail() {
    let u = unit("I live in Denver.");
    assert!(u.check("  ...  ").is_err());
    let long = format!("I live in Denver. {}", "And so on. ".repeat(20));
    assert!(u.check(&long).unwrap_err().contains("characters"));
}

fn question(original: &str) -> Unit {
    Unit::new(UnitKind::Question, original, &[], &[])
}

#[test]
fn a_question_stays_a_question_of_its_kind() {
    let q = question("Answer yes or no: is the gate code for my garage 4471?");
    let e = q.check("The gate code for my garage is 4471.").unwrap_err();
    assert!(e.contains("question"), "{e}");
    let e = q
        .check("Answer yes or no: can you tell me what the gate code for my garage is?")
        .unwrap_err();
    assert!(e.contains("yes/no"), "{e}");
    let e = q.check("Is the gate code for my garage 4471?").unwrap_err();
    assert!(e.contains("yes or no"), "{e}");
    assert_eq!(
        q.check("Yes or no, please: is my garage's gate code 4471?"),
        Ok(())
    );
    let w = question("Quick one: which dentist do I see?");
    assert_eq!(w.check("Remind me, which dentist do I go to?"), Ok(()));
    assert!(w.check("I see a dentist.").is_err());
}

#[test]
fn the_person_stays() {
    let q = question("What is the door code of my building?");
    let e = q
        .check("What is the door code of your building?")
        .unwrap_err();
    assert!(e.contains("person"), "{e}");
    let u = Unit::new(UnitKind::User, "My cat sleeps all day.", &[], &[]);
    assert!(u.check("The cat sleeps all day long.").is_err());
    assert_eq!(u.check("Honestly, my cat naps the whole day."), Ok(()));
    // One first-person word kept ("Remind me") does not keep the person of the rest.
    let q = question("Remind me, what medication do I take every day?");
    let e = q
        .check("Remind me, what medication do you take every day?")
        .unwrap_err();
    assert!(e.contains("person"), "{e}");
    assert_eq!(
        q.check("Remind me, which medication do I take each day?"),
        Ok(())
    );
    let a = Unit::new(UnitKind::Assistant, "Your garden sounds lovely.", &[], &[]);
    assert!(a.check("My garden sounds lovely.").is_err());
    assert_eq!(a.check("What a lovely garden you have."), Ok(()));
}

#[test]
fn quotes_extra_lines_and_notes_about_the_rewriting_fail() {
    let u = Unit::new(UnitKind::User, "I bake bread on Sundays.", &[], &[]);
    for bad in [
        "\"I bake bread every Sunday.\"",
        "“I bake bread every Sunday.”",
        "I bake bread every Sunday. (no quotes) No labels or notes added.",
        "Here is the rewritten line: I bake bread every Sunday.",
        "Sure, I bake bread every Sunday.",
        "I bake bread every Sunday.\nNote: kept the meaning.",
    ] {
        assert!(u.check(bad).is_err(), "{bad}");
    }
    assert_eq!(u.check("Every Sunday I bake bread."), Ok(()));
    // What the original itself says is not a note.
    let v = Unit::new(UnitKind::User, "Here's my plan: rewrite my CV.", &[], &[]);
    assert_eq!(v.check("Here's my plan: I'll rewrite my CV."), Ok(()));
}

#[test]
fn the_prompt_lists_the_values_and_the_retry_reason() {
    let u = unit("We moved to Denver last spring.");
    let m = u.messages(Some("the rewrite drops the value \"Denver\""));
    let user = &m[1].content;
    assert!(user.contains("verbatim: \"Denver\""), "{user}");
    assert!(
        user.contains("Never add these values: \"Maria Lopez\""),
        "{user}"
    );
    assert!(user.contains("was rejected because"), "{user}");
    assert!(user.ends_with("We moved to Denver last spring."), "{user}");
}
