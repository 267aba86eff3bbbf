// The library answers to the loader's soname, so that a runtime which reopens
// `libze_loader.so.1` by its bare name (UMF does) gets this already-loaded copy.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libze_loader.so.1");
    // Its own calls bind to its own functions: another copy of the simulator in the process
    // (a library built with lazy-usm's simulator) exports the same names and would otherwise
    // take them over, and with them this library's platform.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
}
