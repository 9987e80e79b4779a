%% literal percent
x %% y
