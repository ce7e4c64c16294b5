/* libxml2 (Debian libxml2-dev): the push (SAX) parser that reads KeePass databases' XML and XML key
   files, rejecting malformed input with an error instead of trapping. Debian builds libxml2 with ICU,
   whose headers clash with the toolchain's own ICU module; the parser API needs none of it (only
   pointers to the converter structures), so ICU is left out here. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlerror.h>

/* A generic error handler that prints nothing: libxml2 reports some errors (an input encoding it cannot
   convert, quoting input bytes) outside any parser context, and would print them to stderr. */
static void clibxml2_silence(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

/* Installs clibxml2_silence as this thread's generic error handler (libxml2's handlers are per thread). */
static inline void clibxml2_silence_generic_errors(void) {
    xmlSetGenericErrorFunc(NULL, clibxml2_silence);
}
