//! SQL aggregate and table functions (sdk/ABI.md, "SQL aggregate
//! functions" and "SQL table functions"): an aggregate that a script
//! declares with `CREATE AGGREGATE` is a window aggregate function whose
//! records are argument rows and whose result is one SQL value; a table
//! function (`RETURNS TABLE` or `RETURNS SETOF`) is a map function whose
//! output holds zero or more result rows back to back.

use crate::sql::{append_sql_value, decode_sql_row};
use crate::{Aggregate, Codec, Context, Registry, Result, SqlValue, Window, WindowRecord};

/// A SQL aggregate function: the host keeps one accumulator per group (and
/// window), stored with [`Self::Codec`], adds each row's arguments to it,
/// merges two when session windows merge, and asks for the result when the
/// group's row is written. Register one with
/// [`Registry::sql_aggregate`](crate::Registry::sql_aggregate).
pub trait SqlAggregate: 'static {
    /// How the accumulator is stored between calls.
    type Codec: Codec;
    /// Returns the accumulator of a group that has none yet.
    fn create(&mut self) -> <Self::Codec as Codec>::Owned;
    /// Folds one row's arguments (NULLs included) into `acc`.
    fn add(&mut self, acc: &mut <Self::Codec as Codec>::Owned, args: &[SqlValue]) -> Result<()>;
    /// Folds `other` into `acc`.
    fn merge(
        &mut self,
        acc: &mut <Self::Codec as Codec>::Owned,
        other: <Self::Codec as Codec>::Owned,
    ) -> Result<()>;
    /// The aggregate's value: of the declared `RETURNS` type, or NULL.
    fn result(&mut self, acc: <Self::Codec as Codec>::Owned) -> Result<SqlValue>;
}

/// A [`SqlAggregate`] run as a window aggregate function.
struct SqlAgg<A> {
    f: A,
    args: Vec<SqlValue>,
    out: Vec<u8>,
}

impl<A: SqlAggregate> Aggregate for SqlAgg<A> {
    type Codec = A::Codec;

    fn create(&mut self) -> <A::Codec as Codec>::Owned {
        self.f.create()
    }

    fn add(&mut self, acc: &mut <A::Codec as Codec>::Owned, r: WindowRecord<'_>) -> Result<()> {
        decode_sql_row(r.value, &mut self.args)?;
        self.f.add(acc, &self.args)
    }

    fn merge(
        &mut self,
        acc: &mut <A::Codec as Codec>::Owned,
        other: <A::Codec as Codec>::Owned,
    ) -> Result<()> {
        self.f.merge(acc, other)
    }

    fn result(
        &mut self,
        ctx: &mut Context,
        _: Window,
        acc: <A::Codec as Codec>::Owned,
    ) -> Result<()> {
        let v = self.f.result(acc)?;
        self.out.clear();
        append_sql_value(&mut self.out, &v);
        ctx.emit(&self.out);
        Ok(())
    }
}

impl Registry {
    /// Registers `f` as the SQL aggregate function `name`.
    pub fn sql_aggregate<A: SqlAggregate>(&mut self, name: &str, f: A) {
        self.aggregate(name, move |_| {
            Ok(SqlAgg {
                f,
                args: Vec::new(),
                out: Vec::new(),
            })
        });
    }

    /// Registers `f` as the SQL table function `name` (a map function):
    /// for each record's arguments `f` pushes zero or more rows, each the
    /// declared columns in order, onto its second argument, which is empty
    /// at each call.
    pub fn sql_table_function<F>(&mut self, name: &str, mut f: F)
    where
        F: FnMut(&[SqlValue], &mut Vec<Vec<SqlValue>>) -> Result<()> + 'static,
    {
        let mut args = Vec::new();
        let mut rows = Vec::new();
        self.map(name, move |rec, out| {
            decode_sql_row(rec, &mut args)?;
            rows.clear();
            f(&args, &mut rows)?;
            for row in &rows {
                for v in row {
                    append_sql_value(out, v);
                }
            }
            Ok(())
        });
    }
}
