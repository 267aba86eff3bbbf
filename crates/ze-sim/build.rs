// As a driver (libze_sim.so) its own calls bind to its own functions, whatever else in the
// process exports the same Level Zero names (a loader stand-in, another copy of the simulator).
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
}
