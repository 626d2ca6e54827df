//! Statistics of a dataset, in the shape of the paper's Tables 4 and 5.
