// `vpnlab product new NAME --from PRODUCT --binary PATH`: your build as a product
// (lab/cli/product_new.h).
#include "lab/cli/product_new.h"
#include "lab/cli/verbs/verb.h"

namespace vpnlab {

extern const Verb kProductVerb = {
    "product",
    "product new NAME --from PRODUCT --binary /path/to/your/build",
    "Writes a product folder NAME under the first directory of $VPNLAB_PRODUCTS, else ~/.config/vpnlab/products: "
    "PRODUCT's\n"
    "spec and templates, running your build where PRODUCT runs its main binary (its first 'binaries' entry). Then\n"
    "'vpnlab run FILE --product NAME' measures it like any product.",
    {"--from", "--binary"},
    cmd_product};

}  // namespace vpnlab
