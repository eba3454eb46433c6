//! The SDK's runtime driven through its exports by the native test host:
//! every shape of function, state, timers, windows and failures.

use floe::testing::{Emitted, Failure, Harness, Record};
use floe::{
    Aggregate, Bytes, Context, Error, Open, Operator, Output, Redistribution, Registry, Result,
    Str, TimeDomain, Timer, Window, WindowRecord, WindowRecords, I64,
};

fn lines(out: Vec<Emitted>) -> Vec<String> {
    out.iter().map(|e| e.to_string()).collect()
}

fn fail(record: Option<usize>, message: &str) -> Failure {
    Failure {
        record,
        message: message.to_owned(),
    }
}

fn stateless(r: &mut Registry) {
    r.map("upper", |v, out| {
        if v == b"bad" {
            floe::bail!("bad record {:?}", String::from_utf8_lossy(v));
        }
        out.extend(v.iter().map(u8::to_ascii_uppercase));
        Ok(())
    });
    r.filter("short", |v| Ok(v.len() < 3));
    r.flat_map("chars", |ctx, v| {
        for c in v.chunks(1) {
            ctx.emit(c);
        }
        Ok(())
    });
    r.key_selector("first", |v, key| {
        key.extend(v.iter().take_while(|&&c| c != b','));
        Ok(())
    });
    r.process("routed", |open: &mut Open| {
        let odd = open.output("odd");
        let greeting = open.params().get("greeting").unwrap_or("hi").to_owned();
        Ok(move |ctx: &mut Context, v: &[u8]| -> Result<()> {
            let n: i64 = std::str::from_utf8(v)?.parse()?;
            if n % 2 == 1 {
                ctx.emit_to(odd, greeting.as_bytes());
            } else {
                ctx.emit_with_timestamp(Output::MAIN, v, Some(n));
            }
            Ok(())
        })
    });
}

#[test]
fn maps_filters_and_flat_maps_keep_the_input_timestamp() {
    let mut h = Harness::new(stateless);
    h.open("upper", &[]).unwrap();
    let out = h
        .process(&[Record::new("ab").at(3), Record::new(""), Record::new("c")])
        .unwrap();
    assert_eq!(lines(out), ["main @3 AB", "main @- ", "main @- C"]);
    h.open("short", &[]).unwrap();
    assert_eq!(
        lines(
            h.process(&[Record::new("ab"), Record::new("abc").at(1)])
                .unwrap()
        ),
        ["main @- ab"]
    );
    h.open("chars", &[]).unwrap();
    assert_eq!(
        lines(h.process(&[Record::new("xy").at(9)]).unwrap()),
        ["main @9 x", "main @9 y"]
    );
    h.open("first", &[]).unwrap();
    assert_eq!(
        lines(h.process(&[Record::new("k1,v"), Record::new(",")]).unwrap()),
        ["main @- k1", "main @- "]
    );
}

#[test]
fn errors_name_the_record_and_keep_earlier_output_out() {
    let mut h = Harness::new(stateless);
    h.open("upper", &[]).unwrap();
    let err = h
        .process(&[Record::new("ok"), Record::new("bad")])
        .unwrap_err();
    assert_eq!(err, fail(Some(1), "bad record \"bad\""));
    h.open("routed", &[]).unwrap();
    let err = h.process(&[Record::new("x1")]).unwrap_err();
    assert_eq!(err, fail(Some(0), "invalid digit found in string"));
}

#[test]
fn side_outputs_parameters_and_explicit_timestamps() {
    let mut h = Harness::new(stateless);
    h.open("routed", &[("greeting", "hey")]).unwrap();
    let out = h
        .process(&[Record::new("1").at(5), Record::new("4").at(5)])
        .unwrap();
    assert_eq!(lines(out), ["odd @5 hey", "main @4 4"]);
}

#[test]
fn unknown_and_duplicate_functions_fail_open() {
    let mut h = Harness::new(stateless);
    let err = h.open("nope", &[]).unwrap_err();
    assert_eq!(
        err.message,
        "no function \"nope\" in this module (registered: chars, first, routed, short, upper)"
    );
    let mut h = Harness::new(|r| {
        r.filter("f", |_| Ok(true));
        r.filter("f", |_| Ok(false));
    });
    assert_eq!(
        h.open("f", &[]).unwrap_err().message,
        "function \"f\" is registered twice"
    );
}

/// Keeps every kind of keyed state, driven by commands in the values.
struct Keeper {
    total: floe::ValueState<I64>,
    names: floe::ListState<Str>,
    seen: floe::MapState<Bytes, I64>,
    line: Vec<u8>,
}

impl Operator for Keeper {
    fn process(&mut self, ctx: &mut Context, v: &[u8]) -> Result<()> {
        match v {
            b"?" => {
                self.line.clear();
                let total = self.total.get(ctx)?;
                self.line
                    .extend(format!("{:?} {:?} ", total, self.names.get(ctx)?).bytes());
                for (k, n) in self.seen.entries(ctx)? {
                    self.line.extend_from_slice(&k);
                    self.line.push(b'=');
                    floe::append_i64(&mut self.line, n);
                    self.line.push(b' ');
                }
                ctx.emit(&self.line);
            }
            b"reset" => {
                self.total.delete(ctx);
                self.names.clear(ctx);
                self.seen.clear(ctx);
            }
            _ => {
                let n = self.total.get(ctx)?.unwrap_or(0) + 1;
                self.total.put(ctx, &n);
                self.names.append(ctx, std::str::from_utf8(v)?);
                let seen = self.seen.get(ctx, v)?.unwrap_or(0);
                self.seen.put(ctx, v, &(seen + 1));
                if v == b"drop" {
                    self.seen.delete(ctx, v);
                }
            }
        }
        Ok(())
    }
}

fn keeper(r: &mut Registry) {
    r.process("keep", |open: &mut Open| {
        Ok(Keeper {
            total: open.state("total").queryable().value(I64)?,
            names: open.list_state("names", Str)?,
            seen: open.map_state("seen", Bytes, I64)?,
            line: Vec::new(),
        })
    });
}

#[test]
fn keyed_state_is_per_key() {
    let mut h = Harness::new(keeper);
    h.open("keep", &[]).unwrap();
    let batch = [
        Record::keyed("a", "x"),
        Record::keyed("b", "y"),
        Record::keyed("a", "x"),
        Record::keyed("a", "drop"),
        Record::keyed("a", "w"),
        Record::keyed("a", "?"),
        Record::keyed("b", "?"),
        Record::keyed("c", "?"),
    ];
    let out = h.process(&batch).unwrap();
    assert_eq!(
        lines(out),
        [
            "main @- Some(4) [\"x\", \"x\", \"drop\", \"w\"] w=1 x=2 ",
            "main @- Some(1) [\"y\"] y=1 ",
            "main @- None [] ",
        ]
    );
    assert_eq!(h.value("total", b"a"), Some(4i64.to_le_bytes().to_vec()));
    let out = h
        .process(&[Record::keyed("a", "reset"), Record::keyed("a", "?")])
        .unwrap();
    assert_eq!(lines(out), ["main @- None [] "]);
}

#[test]
fn corrupt_state_is_an_error_naming_the_state() {
    fn register(r: &mut Registry) {
        r.process("read", |open: &mut Open| {
            let mut wide = open.value_state("v", Bytes)?;
            let mut narrow = open.value_state("v", I64)?;
            Ok(move |ctx: &mut Context, _: &[u8]| -> Result<()> {
                wide.put(ctx, b"abc");
                narrow.get(ctx)?;
                Ok(())
            })
        });
    }
    let mut h = Harness::new(register);
    h.open("read", &[]).unwrap();
    let err = h.process(&[Record::keyed("k", "")]).unwrap_err();
    assert_eq!(
        err,
        fail(Some(0), "state \"v\": int64 state value of 3 bytes, want 8")
    );
}

#[test]
fn large_values_grow_the_read_buffer() {
    fn register(r: &mut Registry) {
        r.process("big", |open: &mut Open| {
            let mut v = open.value_state("v", Bytes)?;
            Ok(move |ctx: &mut Context, rec: &[u8]| -> Result<()> {
                let big = rec.repeat(10_000);
                v.put(ctx, &big);
                let got = v.get(ctx)?.unwrap();
                assert_eq!(got, big);
                assert_eq!(v.get_raw(ctx).unwrap().len(), big.len());
                Ok(())
            })
        });
    }
    let mut h = Harness::new(register);
    h.open("big", &[]).unwrap();
    h.process(&[Record::keyed("k", "abcdefgh")]).unwrap();
}

/// Buffers values in operator list state until `size` of them are there.
fn lists(r: &mut Registry) {
    r.process("buffer", |open: &mut Open| {
        let size = open.params().int("size", 2)? as usize;
        let mut buf = open.operator_list_state("buf", Bytes, Redistribution::EvenSplit)?;
        let mut members = open.operator_list_state("members", Str, Redistribution::Union)?;
        let me = format!("s{}", open.params().subtask());
        if !members.get()?.contains(&me) {
            members.append(&me);
        }
        Ok(move |ctx: &mut Context, v: &[u8]| -> Result<()> {
            buf.append(v);
            let all = buf.get()?;
            if all.len() >= size {
                ctx.emit(&all.concat());
                buf.clear();
            }
            Ok(())
        })
    });
}

#[test]
fn operator_lists_are_restored_before_open() {
    let mut h = Harness::new(lists);
    h.preset_operator_list("buf", &["p"]);
    h.preset_operator_list("members", &["s1"]);
    h.open("buffer", &[("floe.subtask", "1")]).unwrap();
    assert_eq!(h.operator_list("members"), [b"s1".to_vec()]);
    let out = h.process(&[Record::new("a"), Record::new("b")]).unwrap();
    assert_eq!(lines(out), ["main @- pa"]);
    assert_eq!(h.operator_list("buf"), [b"b".to_vec()]);
    h.open("buffer", &[("floe.subtask", "2"), ("size", "9")])
        .unwrap();
    assert_eq!(h.operator_list("members"), [b"s1".to_vec(), b"s2".to_vec()]);
}

/// Emits when a key's timers fire; deletes the event-time timer on "cancel".
struct Alarm;

impl Operator for Alarm {
    fn process(&mut self, ctx: &mut Context, v: &[u8]) -> Result<()> {
        let ts = ctx.timestamp().ok_or_else(|| Error::msg("no timestamp"))?;
        if v == b"cancel" {
            ctx.delete_event_time_timer(ts);
            return Ok(());
        }
        ctx.register_event_time_timer(ts);
        ctx.register_event_time_timer(ts);
        ctx.register_processing_time_timer(ctx.processing_time() + 100);
        Ok(())
    }

    fn on_timer(&mut self, ctx: &mut Context, timer: Timer) -> Result<()> {
        let what = match timer.domain {
            TimeDomain::EventTime => {
                format!("event {} wm {}", timer.timestamp, ctx.current_watermark())
            }
            TimeDomain::ProcessingTime => format!("processing {}", timer.timestamp),
        };
        let mut line = ctx.key().to_vec();
        line.extend(format!(" {} ts {:?}", what, ctx.timestamp()).bytes());
        ctx.emit(&line);
        Ok(())
    }
}

fn alarms(r: &mut Registry) {
    r.process("alarm", |_: &mut Open| Ok(Alarm));
    r.flat_map("no-handler", |ctx, _| {
        ctx.register_event_time_timer(1);
        Ok(())
    });
}

#[test]
fn timers_fire_in_order_with_their_timestamps() {
    let mut h = Harness::new(alarms);
    h.open("alarm", &[]).unwrap();
    h.process(&[
        Record::keyed("b", "x").at(10),
        Record::keyed("a", "x").at(10),
        Record::keyed("c", "x").at(5),
    ])
    .unwrap();
    h.process(&[Record::keyed("c", "cancel").at(5)]).unwrap();
    assert_eq!(
        lines(h.advance_watermark(10).unwrap()),
        [
            "main @10 a event 10 wm 10 ts Some(10)",
            "main @10 b event 10 wm 10 ts Some(10)"
        ]
    );
    assert_eq!(
        lines(h.advance_watermark(20).unwrap()),
        Vec::<String>::new()
    );
    assert_eq!(
        lines(h.advance_processing_time(100).unwrap()),
        [
            "main @- a processing 100 ts None",
            "main @- b processing 100 ts None",
            "main @- c processing 100 ts None"
        ]
    );
}

#[test]
fn a_timer_without_a_handler_fails() {
    let mut h = Harness::new(alarms);
    h.open("no-handler", &[]).unwrap();
    h.process(&[Record::keyed("k", "x")]).unwrap();
    let err = h.advance_watermark(1).unwrap_err();
    assert_eq!(
        err,
        fail(
            None,
            "a timer fired but function \"no-handler\" has no on_timer"
        )
    );
}

#[test]
fn hooks_run_and_close_reports_every_error() {
    struct Closer;
    impl Operator for Closer {
        fn process(&mut self, _: &mut Context, _: &[u8]) -> Result<()> {
            Ok(())
        }
        fn close(&mut self) -> Result<()> {
            Err(Error::msg("operator close failed"))
        }
    }
    fn register(r: &mut Registry) {
        r.process("c", |_: &mut Open| Ok(Closer));
        r.on_open(|p| {
            floe::log(floe::Level::Warn, &format!("opening {}", p.function()));
            Ok(())
        });
        r.on_close(|| Err(Error::msg("hook failed")));
    }
    let mut h = Harness::new(register);
    h.open("c", &[]).unwrap();
    assert_eq!(h.logs(), [(2, "opening c".to_owned())]);
    assert_eq!(
        h.close().unwrap_err(),
        fail(None, "operator close failed\nhook failed")
    );
}

#[test]
fn output_is_flushed_when_the_buffer_fills() {
    let mut h = Harness::new(|r| {
        r.flat_map("many", |ctx, v| {
            for _ in 0..1000 {
                ctx.emit(v);
            }
            Ok(())
        })
    });
    h.open("many", &[]).unwrap();
    let value = vec![b'x'; 1000];
    let out = h.process(&[Record::new(&value)]).unwrap();
    assert_eq!(out.len(), 1000);
    assert!(out.iter().all(|e| e.value == value));
}

/// Sums the values of a window, as numbers.
struct Sum;

impl Aggregate for Sum {
    type Codec = I64;

    fn create(&mut self) -> i64 {
        0
    }

    fn add(&mut self, acc: &mut i64, r: WindowRecord<'_>) -> Result<()> {
        *acc += std::str::from_utf8(r.value)?.parse::<i64>()?;
        Ok(())
    }

    fn merge(&mut self, acc: &mut i64, other: i64) -> Result<()> {
        *acc += other;
        Ok(())
    }

    fn result(&mut self, ctx: &mut Context, w: Window, acc: i64) -> Result<()> {
        let line = format!(
            "{} [{},{}) {}",
            String::from_utf8_lossy(ctx.key()),
            w.start,
            w.end,
            acc
        );
        ctx.emit(line.as_bytes());
        Ok(())
    }
}

fn windows(r: &mut Registry) {
    r.aggregate("sum", |_: &mut Open| Ok(Sum));
    r.window("latest", |_: &mut Open| {
        Ok(
            |ctx: &mut Context, w: Window, records: WindowRecords| -> Result<()> {
                let n = records.len();
                let last = records
                    .max_by_key(|r| r.timestamp)
                    .map(|r| r.value.to_vec())
                    .unwrap_or_default();
                ctx.emit(format!("{} of {}", String::from_utf8_lossy(&last), n).as_bytes());
                ctx.emit_with_timestamp(Output::MAIN, b"start", Some(w.start));
                Ok(())
            },
        )
    });
}

#[test]
fn aggregates_add_merge_and_emit_results_at_the_window_end() {
    let mut h = Harness::new(windows);
    h.open("sum", &[]).unwrap();
    let w = Window { start: 0, end: 10 };
    let out = h
        .aggregate_window(
            b"k",
            w,
            &[
                &[Record::new("1").at(1), Record::new("2").at(2)],
                &[],
                &[Record::new("39")],
            ],
        )
        .unwrap();
    assert_eq!(lines(out), ["main @9 k [0,10) 42"]);
    let err = h
        .aggregate_window(b"k", w, &[&[Record::new("x")]])
        .unwrap_err();
    assert_eq!(err, fail(None, "invalid digit found in string"));
}

#[test]
fn window_functions_get_the_whole_window() {
    let mut h = Harness::new(windows);
    h.open("latest", &[]).unwrap();
    let w = Window {
        start: 100,
        end: 200,
    };
    let out = h
        .process_window(
            b"k",
            w,
            &[Record::new("b").at(150), Record::new("a").at(120)],
        )
        .unwrap();
    assert_eq!(lines(out), ["main @199 b of 2", "main @100 start"]);
}

#[test]
fn window_calls_check_the_function_kind() {
    let mut h = Harness::new(windows);
    h.open("latest", &[]).unwrap();
    let err = h
        .aggregate_window(b"k", Window { start: 0, end: 1 }, &[&[]])
        .unwrap_err();
    assert_eq!(err, fail(None, "function \"latest\" is not an aggregate function (register it with Registry::aggregate)"));
    h.open("sum", &[]).unwrap();
    let err = h
        .process_window(b"k", Window { start: 0, end: 1 }, &[])
        .unwrap_err();
    assert_eq!(
        err,
        fail(
            None,
            "function \"sum\" is not a window process function (register it with Registry::window)"
        )
    );
    let err = h.process(&[Record::new("1")]).unwrap_err();
    assert_eq!(
        err,
        fail(
            None,
            "function \"sum\" is a window function: use it in a window operator"
        )
    );
}
