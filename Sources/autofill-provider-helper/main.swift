// autofill-provider-helper: runs one provider plugin in a process of its own for the autofill host
// (docs/ARCHITECTURE.md, "Helper processes"). Started by autofill only, with its descriptors 3 and 4.
import AutofillProviderRuntime

ProviderHelper.main(arguments: CommandLine.arguments)
