@testable import AutofillHost
@testable import AutofillProviderRuntime
import AutofillTestSupport
import Foundation
import Testing

/// The optional helpers of C providers (Plugins/Common/af_provider_util.{h,c}), which the netrc, pass
/// and Secret Service samples compile in: what they answer, and that they never leak into a library's
/// exported symbols (a provider exports its entry function alone).
struct CProviderHelpersTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    static var common: String { "\(FixturePlugin.repositoryRoot)/Plugins/Common" }

    /// Compiles `source` with the helpers (`cc`, with `flags`) into `name` in the folder.
    func compile(_ source: String, name: String, flags: [String]) throws -> String {
        let file = try folder.file("\(name).c", source)
        let output = "\(folder.path)/\(name)"
        let result = try ChildProcess.run("/usr/bin/cc", ["-std=c11", "-Wall", "-Wextra", "-Werror", "-I", FixturePlugin.abiInclude,
                                                          "-I", Self.common, file, "\(Self.common)/af_provider_util.c", "-o", output] + flags)
        guard result.status == 0 else { throw ChildProcessError("cc failed: \(result.stderr)") }
        return output
    }

    @Test func theCSamplesExportTheirEntryFunctionAndNothingTheyShareInside() throws {
        let inside = ["afu_log", "afu_setting", "afu_wipe", "afu_host_span", "state", "store_load", "decrypt", "totp_code",
                      "keyring_load", "service_connect", "provide"]
        for sample in ["NetrcProvider", "PassProvider", "SecretServiceProvider"] {
            let bundle = try TestPlugins.copyOfSample(sample, into: folder.path)
            let manifest = try #require(ManifestReader.read(bundle: bundle).manifest)
            #expect(PluginProblem.entrySymbolCheck(manifest) == nil, "\(sample)")
            for name in inside {
                #expect(try ELFDynamicSymbols.lookup(name, inLibrary: manifest.libraryPath) == .absent, "\(sample): \(name)")
            }
        }
    }

    @Test func theHelpersStayHiddenEvenWithoutVisibilityFlags() throws {
        let library = try compile("""
            #include "af_provider_util.h"
            AF_EXPORT int some_entry(const char *s) { return afu_utf8_valid(s, 1); }
            """, name: "libplain.so", flags: ["-shared", "-fPIC"])
        #expect(try ELFDynamicSymbols.lookup("some_entry", inLibrary: library) == .function)
        for name in ["afu_utf8_valid", "afu_log", "afu_setting", "afu_host_span", "afu_domain_matches"] {
            #expect(try ELFDynamicSymbols.lookup(name, inLibrary: library) == .absent, "\(name)")
        }
    }

    /// A program that prints what the helpers answer for a table of inputs, one line each.
    static let probe = #"""
        #include <stdio.h>
        #include <string.h>
        #include "af_provider_util.h"

        static const char *setting_value;
        static size_t setting_length;
        static af_status get_setting(const char *key, size_t key_length, char *value, size_t capacity, size_t *length) {
            (void)key, (void)key_length;
            if (!setting_value) return AF_STATUS_NOT_FOUND;
            *length = setting_length;
            if (capacity < setting_length) return AF_STATUS_BUFFER_TOO_SMALL;
            memcpy(value, setting_value, setting_length);
            return AF_OK;
        }

        static void setting(const char *value, size_t length) {
            af_host_services host = {.abi_version = AF_ABI_VERSION, .size = sizeof host, .get_setting = get_setting};
            char *out = NULL;
            setting_value = value, setting_length = length;
            af_status s = afu_setting(&host, "Key", &out);
            printf("setting %d %s\n", (int)s, out ? out : "(none)");
        }

        int main(void) {
            static const struct { const char *text; int url; } hosts[] = {
                {"https://user:pw@Host.Example.com.:8443/path?q#f", 1}, {"[::1]:8080/x", 1}, {"http://[fe80::1]/", 1},
                {"example.com.", 0}, {"example.com/login", 1}, {"", 1}, {"ftp://a@b@c.example/", 1},
            };
            for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
                const char *h;
                size_t n = afu_host_span(hosts[i].text, strlen(hosts[i].text), hosts[i].url, &h);
                printf("host [%.*s]\n", (int)n, h);
            }
            static const char *domains[][2] = {
                {"www.example.com", "example.com"}, {"example.com", "EXAMPLE.com"}, {"badexample.com", "example.com"},
                {"example.com", "www.example.com"}, {"example.com", ""},
            };
            for (size_t i = 0; i < sizeof domains / sizeof domains[0]; i++)
                printf("domain %d\n", afu_domain_matches(domains[i][0], strlen(domains[i][0]), domains[i][1], strlen(domains[i][1])));
            char text[] = "tab\there\nnew \xC3\xA9 \xC3 \xED\xA0\x80 end";
            afu_sanitize(text, sizeof text - 1);
            printf("sanitized %s\n", text);
            setting("/some/path", 10);
            setting("a\0b", 3);
            setting("", 0);
            setting(NULL, 0);
            return 0;
        }
        """#

    @Test func theHelpersAnswerAsTheProvidersDid() throws {
        let program = try compile(Self.probe, name: "probe", flags: [])
        let result = try ChildProcess.run(program, [])
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").map(String.init) == [
            "host [Host.Example.com]", "host [::1]", "host [fe80::1]", "host [example.com]", "host [example.com]", "host []",
            "host [c.example]",
            "domain 1", "domain 1", "domain 0", "domain 0", "domain 0",
            "sanitized tab?here?new é ? ??? end",
            "setting 0 /some/path", "setting 1 (none)", "setting -6 (none)", "setting -6 (none)",
        ])
    }
}
