// From the log crate src/macros.rs (MIT or Apache-2.0): the log_enabled! macro.
macro_rules! log_enabled {
    // log_enabled!(logger: my_logger, target: "my_target", Level::Info)
    (logger: $logger:expr, target: $target:expr, $lvl:expr) => ({
        $crate::__log_enabled!(logger: $crate::__log_logger!($logger), target: $target, $lvl)
    });

    // log_enabled!(logger: my_logger, Level::Info)
    (logger: $logger:expr, $lvl:expr) => ({
        $crate::__log_enabled!(logger: $crate::__log_logger!($logger), target: $crate::__private_api::module_path!(), $lvl)
    });

    // log_enabled!(target: "my_target", Level::Info)
    (target: $target:expr, $lvl:expr) => ({
        $crate::__log_enabled!(logger: $crate::__log_logger!(__log_global_logger), target: $target, $lvl)
    });

    // log_enabled!(Level::Info)
    ($lvl:expr) => ({
        $crate::__log_enabled!(logger: $crate::__log_logger!(__log_global_logger), target: $crate::__private_api::module_path!(), $lvl)
    });
}
