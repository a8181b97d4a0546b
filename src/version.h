#define FOM_VERSION "0.1.0"
