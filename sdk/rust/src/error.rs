//! The error type of operator functions.

use std::borrow::Cow;
use std::fmt;

/// The error an operator function returns to fail the task.
///
/// Its message becomes the task's failure, with the record that caused it:
/// `module "m" function "f": <message> (record N: "<first bytes>")`.
///
/// Any [`std::error::Error`] converts into it, so `?` works on parse and
/// UTF-8 errors; [`Error::msg`] makes one from a message.
pub struct Error {
    msg: Cow<'static, str>,
}

/// The result of operator functions and SDK calls.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Returns an error with the message `msg`. A `&'static str` is not
    /// copied.
    pub fn msg(msg: impl Into<Cow<'static, str>>) -> Error {
        Error { msg: msg.into() }
    }

    /// Returns the error's message.
    pub fn message(&self) -> &str {
        &self.msg
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.msg, f)
    }
}

// NB: Error does not implement std::error::Error itself, or this blanket
// conversion would overlap with `impl From<T> for T` (anyhow does the same).
impl<E: std::error::Error> From<E> for Error {
    fn from(e: E) -> Error {
        Error::msg(e.to_string())
    }
}

/// Returns early with an [`Error`] made from a format string, like
/// `return Err(Error::msg(format!(...)))`.
///
/// ```
/// fn check(n: i64) -> floe::Result<()> {
///     if n < 0 {
///         floe::bail!("negative count {}", n);
///     }
///     Ok(())
/// }
/// assert_eq!(check(-1).unwrap_err().message(), "negative count -1");
/// ```
#[macro_export]
macro_rules! bail {
    ($msg:literal $(,)?) => {
        return ::std::result::Result::Err($crate::Error::msg(::std::format!($msg)))
    };
    ($fmt:literal, $($arg:tt)+) => {
        return ::std::result::Result::Err($crate::Error::msg(::std::format!($fmt, $($arg)+)))
    };
}
