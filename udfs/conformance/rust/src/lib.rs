//! The conformance suite's operators written with the Rust SDK
//! (udfs/conformance/README.md). Their transcripts must be byte-identical to
//! the Go SDK's.

use floe::{
    append_i64, find_byte, BroadcastState, Bytes, Context, Error, MapState, Open, Operator,
    OperatorListState, Redistribution, Registry, Result, SqlAggregate, SqlValue, TimeDomain, Timer,
    ValueState, I64,
};

fn register(r: &mut Registry) {
    r.map("upper", upper);
    r.sql_function("price_band", price_band);
    r.sql_function("pick", |args: &[SqlValue]| match args {
        [SqlValue::Boolean(c), a, b] => Ok(if *c { a.clone() } else { b.clone() }),
        [SqlValue::Null, _, _] => Ok(SqlValue::Null),
        _ => Err(Error::msg("pick takes a BOOLEAN and 2 values")),
    });
    r.sql_aggregate("spread", Spread);
    r.sql_table_function("series", series);
    r.filter("evens", |v| Ok(v.len() % 2 == 0));
    r.process("split", split);
    r.process("tag", tag);
    r.process("count", count);
    r.process("distinct", Distinct::open);
    r.process("hold", hold);
    r.process("cell", cell);
    r.process("session", Session::open);
    r.process("buffer", Buffer::open);
    r.map("q1", q1);
    r.process("keyedcount", keyed_count);
    r.process("left", |o: &mut Open| Pair::open(o, b'L'));
    r.process("right", |o: &mut Open| Pair::open(o, b'R'));
    r.process("watch", |o: &mut Open| Rules::open(o, false));
    r.process("rule", |o: &mut Open| Rules::open(o, true));
}

floe::module!(register);

fn upper(v: &[u8], out: &mut Vec<u8>) -> Result<()> {
    if v == b"poison" {
        return Err(Error::msg("poison record"));
    }
    out.extend(v.iter().map(u8::to_ascii_uppercase));
    Ok(())
}

/// price_band(price BIGINT) RETURNS VARCHAR: a SQL function.
fn price_band(args: &[SqlValue]) -> Result<SqlValue> {
    Ok(match args.first() {
        Some(SqlValue::BigInt(p)) if *p < 100 => SqlValue::Varchar("low".into()),
        Some(SqlValue::BigInt(p)) if *p < 700 => SqlValue::Varchar("mid".into()),
        Some(SqlValue::BigInt(_)) => SqlValue::Varchar("high".into()),
        _ => SqlValue::Null,
    })
}

fn split(open: &mut Open) -> Result<impl Operator> {
    let comments = open.output("comments");
    let numbers = open.output("numbers");
    Ok(move |ctx: &mut Context, v: &[u8]| -> Result<()> {
        for f in v.split(|&c| c == b',') {
            match f {
                [] => {}
                [b'#', rest @ ..] => ctx.emit_to(comments, rest),
                _ if f.iter().all(u8::is_ascii_digit) => ctx.emit_to(numbers, f),
                _ => ctx.emit(f),
            }
        }
        Ok(())
    })
}

fn tag(open: &mut Open) -> Result<impl Operator> {
    let p = open.params();
    let prefix = format!(
        "{}/{}/{}/",
        p.get("greeting").unwrap_or("hello"),
        p.get("floe.subtask").unwrap_or(""),
        p.get("floe.parallelism").unwrap_or("")
    );
    let mut line = Vec::new();
    Ok(move |ctx: &mut Context, v: &[u8]| -> Result<()> {
        line.clear();
        line.extend_from_slice(prefix.as_bytes());
        line.extend_from_slice(v);
        ctx.emit(&line);
        Ok(())
    })
}

/// Emits "<key>,<n>" after adding one to the key's count in `counts`.
fn count_in(counts: &mut ValueState<I64>, line: &mut Vec<u8>, ctx: &mut Context) -> Result<()> {
    let n = counts.get(ctx)?.unwrap_or(0) + 1;
    counts.put(ctx, &n);
    line.clear();
    line.extend_from_slice(ctx.key());
    line.push(b',');
    append_i64(line, n);
    ctx.emit(line);
    Ok(())
}

fn count(open: &mut Open) -> Result<impl Operator> {
    let mut counts = open.state("counts").queryable().value(I64)?;
    let mut line = Vec::new();
    Ok(move |ctx: &mut Context, _: &[u8]| count_in(&mut counts, &mut line, ctx))
}

fn keyed_count(open: &mut Open) -> Result<impl Operator> {
    let mut counts = open.value_state("count", I64)?;
    let mut line = Vec::new();
    Ok(move |ctx: &mut Context, _: &[u8]| count_in(&mut counts, &mut line, ctx))
}

/// hold: reads two states and uses the first read after the second; each
/// handle reads into its own buffer, so the borrows do not clash.
fn hold(open: &mut Open) -> Result<impl Operator> {
    let mut held = open.value_state("held", Bytes)?;
    let mut prior = open.map_state("prior", Bytes, Bytes)?;
    let mut line = Vec::new();
    Ok(move |ctx: &mut Context, v: &[u8]| -> Result<()> {
        let p = held.get_raw(ctx).unwrap_or(b"-").to_vec();
        line.clear();
        line.extend_from_slice(ctx.key());
        line.push(b':');
        line.extend_from_slice(&p);
        line.push(b':');
        for (i, (k, pv)) in prior.entries_raw(ctx)?.enumerate() {
            if i > 0 {
                line.push(b';');
            }
            line.extend_from_slice(k);
            line.push(b'=');
            line.extend_from_slice(pv);
        }
        ctx.emit(&line);
        held.put(ctx, v);
        prior.put(ctx, v, &p);
        Ok(())
    })
}

/// cell: one state, "cell", seen as bytes and as int64, telling an absent
/// int64 value from a malformed one.
fn cell(open: &mut Open) -> Result<impl Operator> {
    let mut raw = open.value_state("cell", Bytes)?;
    let mut int = open.value_state("cell", I64)?;
    let mut line = Vec::new();
    Ok(move |ctx: &mut Context, v: &[u8]| -> Result<()> {
        if let Some(text) = v.strip_prefix(b"set ") {
            raw.put(ctx, text);
        } else if let Some(n) = v.strip_prefix(b"put ") {
            let n: i64 = std::str::from_utf8(n)
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| Error::msg("not a number"))?;
            int.put(ctx, &n);
        } else if v == b"get" {
            line.clear();
            line.extend_from_slice(ctx.key());
            line.push(b':');
            match int.get(ctx)? {
                Some(n) => append_i64(&mut line, n),
                None => line.extend_from_slice(b"absent"),
            }
            ctx.emit(&line);
        }
        Ok(())
    })
}

/// distinct: per key, how often each value was seen.
struct Distinct {
    seen: MapState<Bytes, I64>,
    line: Vec<u8>,
}

impl Distinct {
    fn open(open: &mut Open) -> Result<Distinct> {
        Ok(Distinct {
            seen: open.map_state("seen", Bytes, I64)?,
            line: Vec::new(),
        })
    }
}

impl Operator for Distinct {
    fn process(&mut self, ctx: &mut Context, v: &[u8]) -> Result<()> {
        let line = &mut self.line;
        line.clear();
        line.extend_from_slice(ctx.key());
        match v {
            b"?" => {
                line.push(b':');
                for (i, (k, n)) in self.seen.entries_raw(ctx)?.enumerate() {
                    if i > 0 {
                        line.push(b';');
                    }
                    line.extend_from_slice(k);
                    line.push(b'=');
                    append_i64(line, <I64 as floe::Codec>::decode(n)?);
                }
            }
            b"!" => {
                self.seen.clear(ctx);
                line.push(b'!');
            }
            _ => {
                let n = self.seen.get(ctx, v)?;
                self.seen.put(ctx, v, &(n.unwrap_or(0) + 1));
                if n.is_some() {
                    return Ok(());
                }
                line.push(b'+');
                line.extend_from_slice(v);
            }
        }
        ctx.emit(line);
        Ok(())
    }
}

/// session: event-time sessions per key, closed `gap` ms after their last
/// record, with an idle notice `idle` ms of processing time after their
/// first.
struct Session {
    last: ValueState<I64>,
    n: ValueState<I64>,
    gap: i64,
    idle: i64,
    line: Vec<u8>,
}

impl Session {
    fn open(open: &mut Open) -> Result<Session> {
        Ok(Session {
            last: open.value_state("last", I64)?,
            n: open.value_state("n", I64)?,
            gap: open.params().int("gap", 10)?,
            idle: open.params().int("idle", 1000)?,
            line: Vec::new(),
        })
    }

    /// Emits "<key>,<what>,<a>,<b>".
    fn emit(&mut self, ctx: &mut Context, what: &str, a: i64, b: Option<i64>) {
        let line = &mut self.line;
        line.clear();
        line.extend_from_slice(ctx.key());
        line.push(b',');
        line.extend_from_slice(what.as_bytes());
        line.push(b',');
        append_i64(line, a);
        if let Some(b) = b {
            line.push(b',');
            append_i64(line, b);
        }
        ctx.emit(line);
    }
}

impl Operator for Session {
    fn process(&mut self, ctx: &mut Context, v: &[u8]) -> Result<()> {
        if v == b"wm?" {
            let wm = ctx.current_watermark();
            self.emit(ctx, "wm", wm, None);
            return Ok(());
        }
        let ts = ctx
            .timestamp()
            .ok_or_else(|| Error::msg("record without timestamp"))?;
        let last = match self.last.get(ctx)? {
            Some(last) => {
                ctx.delete_event_time_timer(last.wrapping_add(self.gap));
                last.max(ts)
            }
            None => ts,
        };
        let n = self.n.get(ctx)?.unwrap_or(0) + 1;
        self.last.put(ctx, &last);
        self.n.put(ctx, &n);
        ctx.register_event_time_timer(last.wrapping_add(self.gap));
        if n == 1 {
            ctx.register_processing_time_timer(ctx.processing_time().wrapping_add(self.idle));
        }
        Ok(())
    }

    fn on_timer(&mut self, ctx: &mut Context, timer: Timer) -> Result<()> {
        let n = self.n.get(ctx)?;
        match timer.domain {
            TimeDomain::EventTime => {
                let last = self.last.get(ctx)?.unwrap_or(0);
                self.emit(ctx, "session", n.unwrap_or(0), Some(last));
                self.last.delete(ctx);
                self.n.delete(ctx);
            }
            TimeDomain::ProcessingTime => {
                if let Some(n) = n {
                    self.emit(ctx, "idle", n, Some(timer.timestamp));
                }
            }
        }
        Ok(())
    }
}

/// left and right: the two functions of one two-input operator, each a
/// Pair of its side; a record of one side matches the other side's pending
/// record of its key. Timers fire into left's on_timer.
struct Pair {
    pending: ValueState<Bytes>,
    side: u8,
    line: Vec<u8>,
}

impl Pair {
    fn open(open: &mut Open, side: u8) -> Result<Pair> {
        Ok(Pair {
            pending: open.value_state("pending", Bytes)?,
            side,
            line: Vec::new(),
        })
    }
}

impl Operator for Pair {
    fn process(&mut self, ctx: &mut Context, v: &[u8]) -> Result<()> {
        let other = if self.side == b'L' { b'R' } else { b'L' };
        match self.pending.get(ctx)? {
            Some(p) if p.first() == Some(&other) => {
                let (l, r) = if self.side == b'L' { (v, &p[1..]) } else { (&p[1..], v) };
                let line = &mut self.line;
                line.clear();
                line.extend_from_slice(ctx.key());
                line.push(b',');
                line.extend_from_slice(l);
                line.push(b',');
                line.extend_from_slice(r);
                ctx.emit(line);
                self.pending.delete(ctx);
            }
            _ => {
                let mut p = vec![self.side];
                p.extend_from_slice(v);
                self.pending.put(ctx, &p);
                ctx.register_event_time_timer(100);
            }
        }
        Ok(())
    }

    fn on_timer(&mut self, ctx: &mut Context, _timer: Timer) -> Result<()> {
        if let Some(p) = self.pending.get(ctx)? {
            let line = &mut self.line;
            line.clear();
            line.extend_from_slice(ctx.key());
            line.extend_from_slice(b",unmatched,");
            line.extend_from_slice(&p);
            ctx.emit(line);
            self.pending.delete(ctx);
        }
        Ok(())
    }
}

/// watch and rule: the keyed and the broadcast function of an operator with
/// a broadcast input, sharing the broadcast state `rules` (name to
/// pattern); watch counts its key's records in `hits`.
struct Rules {
    rules: BroadcastState<Bytes, Bytes>,
    hits: ValueState<I64>,
    broadcast: bool,
}

impl Rules {
    fn open(open: &mut Open, broadcast: bool) -> Result<Rules> {
        Ok(Rules {
            rules: open.broadcast_state("rules", Bytes, Bytes)?,
            hits: open.value_state("hits", I64)?,
            broadcast,
        })
    }

    fn watch(&mut self, ctx: &mut Context, v: &[u8]) -> Result<()> {
        if v == b"write" {
            self.rules.put(b"x", b"y");
            return Ok(());
        }
        let n = self.hits.get(ctx)?.unwrap_or(0) + 1;
        self.hits.put(ctx, &n);
        let mut line = ctx.key().to_vec();
        line.push(b'#');
        append_i64(&mut line, n);
        line.push(b':');
        line.extend_from_slice(v);
        line.push(b':');
        let mut first = true;
        for (name, pattern) in self.rules.entries()? {
            if pattern.is_empty() || v.windows(pattern.len()).any(|w| w == pattern.as_slice()) {
                if !first {
                    line.push(b'+');
                }
                line.extend_from_slice(&name);
                first = false;
            }
        }
        ctx.emit(&line);
        Ok(())
    }

    fn rule(&mut self, ctx: &mut Context, v: &[u8]) -> Result<()> {
        match v {
            b"count" => {
                self.hits.get(ctx)?;
            }
            b"?" => {
                let mut line = b"rules:".to_vec();
                for (i, (name, pattern)) in self.rules.entries()?.into_iter().enumerate() {
                    if i > 0 {
                        line.push(b';');
                    }
                    line.extend_from_slice(&name);
                    line.push(b'=');
                    line.extend_from_slice(&pattern);
                }
                ctx.emit(&line);
            }
            b"!" => {
                self.rules.clear();
                ctx.emit(b"!");
            }
            [b'-', name @ ..] => {
                self.rules.delete(name);
                ctx.emit(v);
            }
            _ => {
                let (name, pattern) = match find_byte(v, b'=') {
                    Some(i) => (&v[..i], &v[i + 1..]),
                    None => (v, &v[v.len()..]),
                };
                if let Some(p) = self.rules.get(name)? {
                    let mut line = vec![b'~'];
                    line.extend_from_slice(name);
                    line.push(b'=');
                    line.extend_from_slice(&p);
                    ctx.emit(&line);
                }
                self.rules.put(name, pattern);
                let mut line = vec![b'+'];
                line.extend_from_slice(name);
                ctx.emit(&line);
            }
        }
        Ok(())
    }
}

impl Operator for Rules {
    fn process(&mut self, ctx: &mut Context, v: &[u8]) -> Result<()> {
        if self.broadcast {
            self.rule(ctx, v)
        } else {
            self.watch(ctx, v)
        }
    }
}

/// buffer: records buffered in operator list state and emitted `size` at a
/// time, and the subtasks that ever ran, in union list state.
struct Buffer {
    buffer: OperatorListState<Bytes>,
    members: OperatorListState<Bytes>,
    size: usize,
    line: Vec<u8>,
}

impl Buffer {
    fn open(open: &mut Open) -> Result<Buffer> {
        let size = open.params().int("size", 3)?;
        let buffer = open.operator_list_state("buffer", Bytes, Redistribution::EvenSplit)?;
        let mut members = open.operator_list_state("members", Bytes, Redistribution::Union)?;
        let me = format!(
            "subtask-{}",
            open.params().get("floe.subtask").unwrap_or("")
        );
        if !members.get_raw()?.any(|m| m == me.as_bytes()) {
            members.append(me.as_bytes());
        }
        Ok(Buffer {
            buffer,
            members,
            size: size.max(0) as usize,
            line: Vec::new(),
        })
    }
}

/// Appends the elements of `list` to `line`, joined by `+`.
fn join(line: &mut Vec<u8>, list: &mut OperatorListState<Bytes>) -> Result<()> {
    for (i, e) in list.get_raw()?.enumerate() {
        if i > 0 {
            line.push(b'+');
        }
        line.extend_from_slice(e);
    }
    Ok(())
}

impl Operator for Buffer {
    fn process(&mut self, ctx: &mut Context, v: &[u8]) -> Result<()> {
        self.line.clear();
        if v == b"?" {
            self.line.extend_from_slice(b"buffer=");
            join(&mut self.line, &mut self.buffer)?;
            self.line.extend_from_slice(b";members=");
            join(&mut self.line, &mut self.members)?;
            ctx.emit(&self.line);
            return Ok(());
        }
        self.buffer.append(v);
        if self.buffer.get_raw()?.len() >= self.size {
            join(&mut self.line, &mut self.buffer)?;
            ctx.emit(&self.line);
            self.buffer.clear();
        }
        Ok(())
    }
}

/// q1 is Nexmark query 1 exactly as udfs/q1 (udfs/internal/nexmark): the
/// bid "auction,bidder,price,channel,url,dateTime" with its price, a
/// non-negative integer of 1 to 18 digits, turned from dollars into euros
/// (× 0.908, rounded toward zero, in integers).
fn q1(bid: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let mut commas = [0usize; 5];
    let mut off = 0;
    for c in commas.iter_mut() {
        let j = match find_byte(&bid[off..], b',') {
            Some(j) => j,
            None => return Err(Error::msg("q1: a bid has 6 comma-separated fields")),
        };
        *c = off + j;
        off += j + 1;
    }
    if find_byte(&bid[off..], b',').is_some() {
        return Err(Error::msg("q1: a bid has 6 comma-separated fields"));
    }
    let price = parse_price(&bid[commas[1] + 1..commas[2]])
        .ok_or_else(|| Error::msg("q1: the price is not an integer of 1 to 18 digits"))?;
    out.extend_from_slice(&bid[..commas[1] + 1]);
    append_i64(out, price / 1000 * 908 + price % 1000 * 908 / 1000);
    out.extend_from_slice(&bid[commas[2]..]);
    Ok(())
}

/// Reads a non-negative decimal integer of 1 to 18 digits.
fn parse_price(b: &[u8]) -> Option<i64> {
    if b.is_empty() || b.len() > 18 {
        return None;
    }
    let mut p = 0i64;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        p = p * 10 + i64::from(c - b'0');
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use floe::testing::{Harness, Record};

    fn lines(out: Vec<floe::testing::Emitted>) -> Vec<String> {
        out.iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn q1_converts_and_rejects_like_go() {
        let mut h = Harness::new(super::register);
        h.open("q1", &[]).unwrap();
        let out = h
            .process(&[
                Record::new("1,2,999,c,u,t").at(2),
                Record::new("1,2,123456789012345678,c,u,t"),
            ])
            .unwrap();
        assert_eq!(
            lines(out),
            [
                "main @2 1,2,907,c,u,t",
                "main @- 1,2,112098764423209875,c,u,t"
            ]
        );
        let err = h
            .process(&[Record::new("1,2,3,4,5,6"), Record::new("1,2,3x,4,5,6")])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "record 1: q1: the price is not an integer of 1 to 18 digits"
        );
    }

    #[test]
    fn left_and_right_share_state_and_timers() {
        let mut h = Harness::new(super::register);
        h.open_co_process("left", "right", &[]).unwrap();
        assert_eq!(lines(h.process(&[Record::keyed("a", "x").at(1)]).unwrap()), Vec::<String>::new());
        assert_eq!(
            lines(h.process2(&[Record::keyed("a", "p").at(2), Record::keyed("b", "q").at(3)]).unwrap()),
            ["main @2 a,x,p"]
        );
        assert_eq!(
            lines(h.advance_watermark(100).unwrap()),
            ["main @100 b,unmatched,Rq"]
        );
    }

    #[test]
    fn watch_reads_what_rule_keeps_in_broadcast_state() {
        let mut h = Harness::new(super::register);
        h.open_broadcast("watch", "rule", &[]).unwrap();
        assert_eq!(
            lines(h.process2(&[Record::new("fruit=app").at(1)]).unwrap()),
            ["main @1 +fruit"]
        );
        assert_eq!(
            lines(h.process(&[Record::keyed("a", "apple").at(2)]).unwrap()),
            ["main @2 a#1:apple:fruit"]
        );
        assert_eq!(h.broadcast_state("rules").len(), 1);
    }

    #[test]
    #[should_panic(expected = "read-only here")]
    fn watch_cannot_write_broadcast_state() {
        let mut h = Harness::new(super::register);
        h.open_broadcast("watch", "rule", &[]).unwrap();
        let _ = h.process(&[Record::keyed("a", "write")]);
    }

    #[test]
    fn session_fires_in_timestamp_then_key_order() {
        let mut h = Harness::new(super::register);
        h.open("session", &[]).unwrap();
        h.process(&[
            Record::keyed("z", "x").at(50),
            Record::keyed("y", "x").at(50),
        ])
        .unwrap();
        assert_eq!(
            lines(h.advance_watermark(60).unwrap()),
            ["main @60 y,session,1,50", "main @60 z,session,1,50"]
        );
        assert_eq!(
            lines(h.advance_processing_time(1000).unwrap()),
            Vec::<String>::new()
        );
    }

    #[test]
    fn buffer_restores_members_once() {
        let mut h = Harness::new(super::register);
        h.preset_operator_list("members", &["subtask-0"]);
        h.open("buffer", &[("floe.subtask", "4")]).unwrap();
        assert_eq!(
            h.operator_list("members"),
            [b"subtask-0".to_vec(), b"subtask-4".to_vec()]
        );
    }

    #[test]
    fn unknown_function_names_it() {
        let mut h = Harness::new(super::register);
        let err = h.open("nope", &[]).unwrap_err();
        assert!(
            err.message
                .starts_with("no function \"nope\" in this module ("),
            "{}",
            err.message
        );
    }
}

/// spread(x BIGINT) RETURNS BIGINT: MAX(x) - MIN(x) of the non-NULL x, a
/// SQL aggregate. Its accumulator is (count, min, max), 24 bytes.
struct Spread;

fn span(acc: &[u8]) -> (i64, i64, i64) {
    let at = |i: usize| i64::from_le_bytes(acc[i * 8..i * 8 + 8].try_into().unwrap());
    (at(0), at(1), at(2))
}

fn set_span(acc: &mut Vec<u8>, (n, lo, hi): (i64, i64, i64)) {
    acc.clear();
    for v in [n, lo, hi] {
        acc.extend_from_slice(&v.to_le_bytes());
    }
}

impl SqlAggregate for Spread {
    type Codec = Bytes;

    fn create(&mut self) -> Vec<u8> {
        vec![0; 24]
    }

    fn add(&mut self, acc: &mut Vec<u8>, args: &[SqlValue]) -> Result<()> {
        if let Some(SqlValue::BigInt(x)) = args.first() {
            let (n, lo, hi) = span(acc);
            let s = if n == 0 {
                (1, *x, *x)
            } else {
                (n + 1, lo.min(*x), hi.max(*x))
            };
            set_span(acc, s);
        }
        Ok(())
    }

    fn merge(&mut self, acc: &mut Vec<u8>, other: Vec<u8>) -> Result<()> {
        let (a, b) = (span(acc), span(&other));
        let s = match (a.0, b.0) {
            (_, 0) => a,
            (0, _) => b,
            _ => (a.0 + b.0, a.1.min(b.1), a.2.max(b.2)),
        };
        set_span(acc, s);
        Ok(())
    }

    fn result(&mut self, acc: Vec<u8>) -> Result<SqlValue> {
        let (n, lo, hi) = span(&acc);
        Ok(if n == 0 {
            SqlValue::Null
        } else {
            SqlValue::BigInt(hi - lo)
        })
    }
}

/// series(n BIGINT, s VARCHAR) RETURNS TABLE (i BIGINT, tag VARCHAR): the
/// rows (i, s || '#' || i) for i = 1 ... n % 5, a SQL table function.
fn series(args: &[SqlValue], rows: &mut Vec<Vec<SqlValue>>) -> Result<()> {
    let n = match args.first() {
        Some(SqlValue::BigInt(n)) if *n > 0 => *n,
        _ => return Ok(()),
    };
    for i in 1..=n % 5 {
        let tag = match args.get(1) {
            Some(SqlValue::Varchar(s)) => SqlValue::Varchar(format!("{}#{}", s, i)),
            _ => SqlValue::Null,
        };
        rows.push(vec![SqlValue::BigInt(i), tag]);
    }
    Ok(())
}
