// The declaration in include/CFuzzerDriver.h is libFuzzer's; SwiftPM needs one source file.
