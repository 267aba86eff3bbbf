// Writes the C header for the exported functions and types into OUT_DIR; the committed
// include/lazy_usm.h must equal it (tests/header.rs checks).
fn main() {
    let crate_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    println!("cargo:rerun-if-changed=src");
    // Its own calls bind to its own functions: with the simulator feature it carries a copy of
    // the simulator, whose exported Level Zero names another library in the process (the loader
    // stand-in) also exports.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let config = cbindgen::Config::from_file(format!("{crate_dir}/cbindgen.toml"))
        .expect("cbindgen.toml is readable");
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("the C header generates")
        .write_to_file(format!("{out_dir}/lazy_usm.h"));
}
