/// Provider authors import only AutofillProviderKit: the core models come with it.
@_exported public import AutofillCore
