// The library answers to the loader's soname, so that a runtime which reopens
// `libze_loader.so.1` by its bare name (UMF does) gets this already-loaded copy.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libze_loader.so.1");
}
