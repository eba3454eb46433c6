//! {{.Name}}: a Floe operator module written with the Floe Rust SDK.
//!
//! It counts words: `split` turns each line into its lower-cased words and
//! `count` counts each word in keyed state, emitting "word,count" on every
//! update. job.yaml runs them; build.sh builds the module.

use floe::{append_i64, Context, Open, Operator, Registry, Result, I64};

/// Registers the module's functions; a job spec picks one by name for each
/// operator (`function:`).
fn register(r: &mut Registry) {
    // The buffer the lower-cased line is built in, reused for every record.
    let mut lower = Vec::new();
    r.flat_map("split", move |ctx, line| {
        lower.clear();
        lower.extend(line.iter().map(u8::to_ascii_lowercase));
        for word in lower.split(|c| !c.is_ascii_alphanumeric()) {
            if !word.is_empty() {
                ctx.emit(word);
            }
        }
        Ok(())
    });
    r.process("count", count);
}

floe::module!(register);

/// Opens the counter: it declares its state, then handles each word.
fn count(open: &mut Open) -> Result<impl Operator> {
    // Queryable: a running job answers "how often has this word been seen?".
    let mut counts = open.state("counts").queryable().value(I64)?;
    let mut line = Vec::new();
    Ok(move |ctx: &mut Context, word: &[u8]| -> Result<()> {
        let n = counts.get(ctx)?.unwrap_or(0) + 1;
        counts.put(ctx, &n);
        line.clear();
        line.extend_from_slice(word);
        line.push(b',');
        append_i64(&mut line, n);
        ctx.emit(&line);
        Ok(())
    })
}

// `cargo test` runs these natively, against the SDK's in-memory host.
#[cfg(test)]
mod tests {
    use floe::testing::{Harness, Record};

    #[test]
    fn counts_words() {
        let mut h = Harness::new(super::register);
        h.open("split", &[]).unwrap();
        let words = h.process(&[Record::new("The cat, the hat.")]).unwrap();
        let words: Vec<_> = words.iter().map(|e| e.value.clone()).collect();
        assert_eq!(words, [&b"the"[..], b"cat", b"the", b"hat"]);

        h.open("count", &[]).unwrap();
        let keyed: Vec<_> = words.iter().map(|w| Record::keyed(w, w)).collect();
        let out = h.process(&keyed).unwrap();
        let lines: Vec<_> = out.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            lines,
            [
                "main @- the,1",
                "main @- cat,1",
                "main @- the,2",
                "main @- hat,1"
            ]
        );
    }
}
