/// What built this program, for `autofill --version` (plugin authors building in Swift need the
/// toolchain: a Swift plugin runs on the host's Swift runtime).
public enum AutofillBuild {
    /// autofill's own version.
    public static let version = "0.1.0"

    /// The Swift compiler that compiled this module, as `swift --version` names it ("6.3.1"), read
    /// from the compiler itself with `#if compiler(>=…)`: exact from 6.0 to 6.5.8; a newer compiler is
    /// named as "6.5.9 or later" / "6.6 or later", never as a version it is not.
    public static let swiftCompiler: String = {
        #if compiler(>=6.6)
        return "6.6 or later"
        #elseif compiler(>=6.5)
            #if compiler(>=6.5.9)
            return "6.5.9 or later"
            #elseif compiler(>=6.5.8)
            return "6.5.8"
            #elseif compiler(>=6.5.7)
            return "6.5.7"
            #elseif compiler(>=6.5.6)
            return "6.5.6"
            #elseif compiler(>=6.5.5)
            return "6.5.5"
            #elseif compiler(>=6.5.4)
            return "6.5.4"
            #elseif compiler(>=6.5.3)
            return "6.5.3"
            #elseif compiler(>=6.5.2)
            return "6.5.2"
            #elseif compiler(>=6.5.1)
            return "6.5.1"
            #else
            return "6.5"
            #endif
        #elseif compiler(>=6.4)
            #if compiler(>=6.4.9)
            return "6.4.9 or later"
            #elseif compiler(>=6.4.8)
            return "6.4.8"
            #elseif compiler(>=6.4.7)
            return "6.4.7"
            #elseif compiler(>=6.4.6)
            return "6.4.6"
            #elseif compiler(>=6.4.5)
            return "6.4.5"
            #elseif compiler(>=6.4.4)
            return "6.4.4"
            #elseif compiler(>=6.4.3)
            return "6.4.3"
            #elseif compiler(>=6.4.2)
            return "6.4.2"
            #elseif compiler(>=6.4.1)
            return "6.4.1"
            #else
            return "6.4"
            #endif
        #elseif compiler(>=6.3)
            #if compiler(>=6.3.9)
            return "6.3.9 or later"
            #elseif compiler(>=6.3.8)
            return "6.3.8"
            #elseif compiler(>=6.3.7)
            return "6.3.7"
            #elseif compiler(>=6.3.6)
            return "6.3.6"
            #elseif compiler(>=6.3.5)
            return "6.3.5"
            #elseif compiler(>=6.3.4)
            return "6.3.4"
            #elseif compiler(>=6.3.3)
            return "6.3.3"
            #elseif compiler(>=6.3.2)
            return "6.3.2"
            #elseif compiler(>=6.3.1)
            return "6.3.1"
            #else
            return "6.3"
            #endif
        #elseif compiler(>=6.2)
            #if compiler(>=6.2.9)
            return "6.2.9 or later"
            #elseif compiler(>=6.2.8)
            return "6.2.8"
            #elseif compiler(>=6.2.7)
            return "6.2.7"
            #elseif compiler(>=6.2.6)
            return "6.2.6"
            #elseif compiler(>=6.2.5)
            return "6.2.5"
            #elseif compiler(>=6.2.4)
            return "6.2.4"
            #elseif compiler(>=6.2.3)
            return "6.2.3"
            #elseif compiler(>=6.2.2)
            return "6.2.2"
            #elseif compiler(>=6.2.1)
            return "6.2.1"
            #else
            return "6.2"
            #endif
        #elseif compiler(>=6.1)
            #if compiler(>=6.1.9)
            return "6.1.9 or later"
            #elseif compiler(>=6.1.8)
            return "6.1.8"
            #elseif compiler(>=6.1.7)
            return "6.1.7"
            #elseif compiler(>=6.1.6)
            return "6.1.6"
            #elseif compiler(>=6.1.5)
            return "6.1.5"
            #elseif compiler(>=6.1.4)
            return "6.1.4"
            #elseif compiler(>=6.1.3)
            return "6.1.3"
            #elseif compiler(>=6.1.2)
            return "6.1.2"
            #elseif compiler(>=6.1.1)
            return "6.1.1"
            #else
            return "6.1"
            #endif
        #elseif compiler(>=6.0)
            #if compiler(>=6.0.9)
            return "6.0.9 or later"
            #elseif compiler(>=6.0.8)
            return "6.0.8"
            #elseif compiler(>=6.0.7)
            return "6.0.7"
            #elseif compiler(>=6.0.6)
            return "6.0.6"
            #elseif compiler(>=6.0.5)
            return "6.0.5"
            #elseif compiler(>=6.0.4)
            return "6.0.4"
            #elseif compiler(>=6.0.3)
            return "6.0.3"
            #elseif compiler(>=6.0.2)
            return "6.0.2"
            #elseif compiler(>=6.0.1)
            return "6.0.1"
            #else
            return "6.0"
            #endif
        #else
        return "before 6.0"
        #endif
    }()
}
