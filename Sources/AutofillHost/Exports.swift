// The provider runtime's public types (AutofillError, PluginManifest, PluginProblem, SandboxPolicy, ...) are part of
// the host library's API: clients of AutofillHost see them without importing the runtime.
@_exported public import AutofillProviderRuntime
