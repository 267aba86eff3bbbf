// The shim answers to the loader's soname (UMF reopens the loader by that bare name), and its
// own calls bind to its own functions, whatever else in the process exports the same names.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libze_loader.so.1");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
}
